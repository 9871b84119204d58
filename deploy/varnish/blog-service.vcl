# Varnish in front of the blog service: the edge cache (docs/production.md, "Edge cache
# (Varnish)"; docs/decisions/edge-cache.md). Debian's varnish (7.1) and varnish-modules (xkey).
#
#   clients ─► nginx (TLS, slow clients) ─► Varnish (this file) ─► gunicorn (BIND 127.0.0.1:8000)
#
# The origin decides what is shared: a GET or HEAD whose answer says `Cache-Control: public` is
# kept for its s-maxage, under its Vary, with the surrogate keys its `xkey` header names. Every
# write purges the keys it changed (the service's Celery worker sends `PURGE /` with
# `xkey-softpurge: <keys>`), and an answer whose fetch began before the last purge is stored
# already stale (the purge clock, below). A purged or expired copy stays in grace for the
# answer's stale-if-error: served while the origin fails, never instead of a fresh answer the
# origin can give, except within stale-while-revalidate of its natural expiry.
#
# Install (one host): apt-get install varnish varnish-modules, then
#   cp deploy/varnish/blog-service.vcl /etc/varnish/default.vcl && systemctl restart varnish
# and point nginx's upstream at Varnish (127.0.0.1:6081). VCL reads no environment: for another
# origin port, change both `.port` lines below (`make serve-edge` and the tests write a copy
# with them replaced).

vcl 4.1;

import std;
import var;
import xkey;

# The origin, for every fetch. It has no probe: Varnish never sends anything to a backend it
# believes sick, and the origin answers what it can while its database is away (the hot
# representations from Redis) and its own 503 problems for the rest.
backend origin {
    .host = "127.0.0.1";
    .port = "8000";
    .connect_timeout = 2s;
    # Longer than gunicorn's worker timeout (30 s), which answers a stuck request first.
    .first_byte_timeout = 35s;
    .between_bytes_timeout = 35s;
}

# The same origin, probed: /healthz is 200 while the service reads its database. Asked only by
# std.healthy(), to choose between stale-while-revalidate and stale-if-error. (/readyz would
# also fail on a Redis outage, during which the service serves fresh answers.) The probe names
# Host `localhost`: keep it in ALLOWED_HOSTS.
backend origin_health {
    .host = "127.0.0.1";
    .port = "8000";
    .probe = {
        .request =
            "GET /healthz HTTP/1.1"
            "Host: localhost"
            "User-Agent: Varnish health probe"
            "Connection: close";
        .timeout = 1s;
        .interval = 1s;
        .window = 3;
        .threshold = 2;
        # Healthy from the start: an empty cache has nothing stale to choose anyway.
        .initial = 2;
    }
}

# Who may purge: the service's Celery workers. Add their addresses when they run elsewhere.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    call edge_join_repeated_headers;
    if (req.restarts == 0) {
        # x-edge-stale is this file's own marker across a restart (vcl_hit, vcl_synth).
        unset req.http.x-edge-stale;
        # Every answer carries the request's id (the contract): the client's when it is one the
        # origin accepts, otherwise a fresh one, made here so that the origin logs the same id
        # for a miss or a pass. Unique per edge: its name, its clock and its transaction id.
        if (req.http.X-Request-ID !~ "^[A-Za-z0-9._-]{1,128}$") {
            set req.http.X-Request-ID = "edge-" + regsuball(server.identity, "[^A-Za-z0-9.-]", "-")
                + "-" + std.time2integer(now, 0) + "-" + req.xid;
        }
    }

    if (req.method == "PURGE") {
        # Varnish has appended the connection's address to X-Forwarded-For: a comma means a
        # proxy in front (nginx passes any method on) relayed it for someone else.
        if (client.ip !~ purgers || req.http.X-Forwarded-For ~ ",") {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-softpurge) {
            return (synth(400, "Bad Request"));
        }
        # The purge clock: when this edge last took a purge, whatever its keys, by this edge's
        # own clock in units of 10 microseconds (VCL's integers end below 10^15; a global of vmod var is
        # a string). A purge marks only the copies stored: an answer still on its way, made
        # before the write, is stored stale by vcl_backend_response instead
        # (docs/decisions/edge-cache.md, "A fetch across a purge").
        var.global_set("edge-purged-at", "" + std.integer(real=std.time2real(now, 0) * 100000));
        set req.http.x-edge-purged = xkey.softpurge(req.http.xkey-softpurge);
        return (synth(200, "OK"));
    }

    call vcl_req_host;

    # Writes and every other method are decided at the origin (If-Match included).
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # A client with credentials sees its own answers (a writer reads its writes at once), and
    # never fills the cache for others.
    if (req.http.X-Access-Token || req.http.Authorization || req.http.Cookie) {
        return (pass);
    }
    # Conditions a copy cannot answer as the origin does (rest/conditional.py, RFC 9110 13.2.2)
    # are the origin's: If-Match (412 unless it names the state, by the tag of any of its
    # variants) and If-Unmodified-Since, which Varnish ignores on a read, and an If-None-Match
    # that is not one entity-tag (a list, `*`), which Varnish compares whole with the copy's
    # ETag. One tag and If-Modified-Since are answered here (vcl_deliver).
    if (req.http.If-Match || req.http.If-Unmodified-Since
            || (req.http.If-None-Match && req.http.If-None-Match !~ {"^(W/)?"[^",]*"$"})) {
        return (pass);
    }
    # Never shared, whatever the origin says: the admin, metrics, GraphQL, SOAP, health checks,
    # webhooks; and a request line in absolute form, which the rules above would not read.
    if (req.url !~ "^/"
            || req.url ~ "^/(admin|metrics|graphql|soap|livez|readyz|healthz)(/|\?|$)"
            || req.url ~ "/webhooks(/|\?|$)") {
        return (pass);
    }

    if (req.http.x-edge-stale == "fetch") {
        # vcl_hit found a copy it may not serve now: a miss, whose fetch is conditional on it.
        set req.grace = 0s;
    } else if (req.http.x-edge-stale == "serve") {
        # The fetch failed: no limit of the request's own (a restart keeps the 0 s above), the
        # copy's grace (stale-if-error) decides.
        set req.grace = 3650d;
    }
    return (hash);
}

# The origin reads a header sent on several lines as one value, the lines joined by "," in
# their order (gunicorn builds the WSGI environ so; RFC 9110 5.3 makes it the same field), and
# Varnish reads the first line only: for Vary, the hash and every test of this file. Each header
# the origin reads to choose or build a shared answer is joined here first, the same way, so that
# the copy is kept under the value the origin answered (one `Accept: */*` line and a second
# `Accept: text/html` is the HTML page under both lines, not under `*/*`). The list: what the
# origin's Vary names (Accept, Accept-Encoding), what vcl_hash hashes, the conditions and
# ranges, and the request id the answer echoes (tests/reliability/test_edge_requests.py
# checks it against core.cache_control.SHARED_VARY).
sub edge_join_repeated_headers {
    std.collect(req.http.Accept, ",");
    std.collect(req.http.Accept-Encoding, ",");
    std.collect(req.http.X-Forwarded-Proto, ",");
    std.collect(req.http.X-Forwarded-Host, ",");
    std.collect(req.http.X-Request-ID, ",");
    std.collect(req.http.If-None-Match, ",");
    std.collect(req.http.If-Modified-Since, ",");
    std.collect(req.http.If-Match, ",");
    std.collect(req.http.If-Unmodified-Since, ",");
    std.collect(req.http.Range, ",");
    std.collect(req.http.If-Range, ",");
}

sub vcl_pass {
    # The origin answers every passed request in full: Django ignores Range, and whitenoise,
    # which reads it on static files, may ignore it too (RFC 9110 14.2). Forwarded, Varnish
    # fails such an answer to a Range it sent (503) and drops the connection with the body
    # unread, failing the next request on it, anyone's. So a passed request goes without one.
    unset req.http.Range;
    unset req.http.If-Range;
}

sub vcl_hash {
    # The origin builds its links from these too (BEHIND_TRUSTED_PROXY): a copy per value, so
    # that an https client never gets http links. The URL and Host follow (the built-in part).
    hash_data(req.http.X-Forwarded-Proto);
    hash_data(req.http.X-Forwarded-Host);
}

sub vcl_hit {
    # Fresh, unless stored already stale by the purge clock (vcl_backend_response: fresh for a
    # millisecond, less than the x-edge-ttl beside it, as a purged copy).
    if ((obj.ttl >= 0s && obj.ttl + obj.age >= std.duration(obj.http.x-edge-ttl, 0s) - 0.01s)
            || req.http.x-edge-stale == "serve") {
        return (deliver);
    }
    # A stale copy, while the origin reads its database: fetch in the foreground when the copy
    # was purged (it expired before its s-maxage: a write changed it), or expired by itself
    # before the last purge (a soft purge passes over expired copies: that purge may have been
    # this copy's; 1 ms for the clock's rounding), or is past its stale-while-revalidate.
    # Otherwise (within stale-while-revalidate, or the origin failing: stale-if-error) it is
    # delivered, and Varnish refreshes it in the background.
    if (std.healthy(origin_health)
            && (obj.ttl + obj.age < std.duration(obj.http.x-edge-ttl, 0s) - 0.01s
                || std.integer(real=(std.time2real(now, 0) + std.real(duration=obj.ttl)) * 100000)
                    <= std.integer(var.global_get("edge-purged-at"), 0) + 100
                || obj.ttl + std.duration(obj.http.x-edge-swr, 0s) <= 0s)) {
        if (req.http.x-edge-stale == "fetch") {
            # Found again by the lookup meant to miss it: Varnish judges freshness from the
            # request's start, and this request began within the copy's TTL (it waited for the
            # fetch that stored it). Asked of the origin, and not stored.
            return (pass);
        }
        set req.http.x-edge-stale = "fetch";
        return (restart);
    }
    return (deliver);
}

sub vcl_backend_fetch {
    # When this fetch began (a background refresh too), for the purge clock: the fetch's own
    # variable, not a header, so that the origin never sees it.
    var.set("edge-fetch-began", "" + std.integer(real=std.time2real(now, 0) * 100000));
}

sub vcl_backend_response {
    if (bereq.uncacheable) {
        return (deliver);
    }
    # A failed refresh replaces nothing: the stale copy stays (stale-if-error). For the
    # foreground fetch of vcl_hit, vcl_synth then serves that copy.
    if (beresp.status >= 500 && (bereq.is_bgfetch || bereq.http.x-edge-stale == "fetch")) {
        return (abandon);
    }
    # Only what the origin marks public is shared; the rest is not kept (hit-for-miss: a later
    # answer for the same URL may be public again).
    if (beresp.http.Cache-Control !~ "(?i)(^|,)\s*public\s*(,|$)" || beresp.http.Set-Cookie) {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Varnish has set the TTL from s-maxage and the grace from stale-while-revalidate. Both are
    # written down for vcl_hit; the grace becomes stale-if-error, the longer window.
    set beresp.http.x-edge-ttl = "" + beresp.ttl + "s";
    set beresp.http.x-edge-swr = "" + beresp.grace + "s";
    if (beresp.http.Cache-Control ~ "(?i)stale-if-error=[0-9]+") {
        set beresp.grace = std.duration(
            regsub(beresp.http.Cache-Control, "(?i)^.*stale-if-error=([0-9]+).*$", "\1s"),
            beresp.grace);
    }
    # The purge clock: a fetch that began at or before the last purge may carry what the purged
    # write replaced, and its copy was not there to be purged. It is stored as a purged copy is:
    # stale (vcl_hit fetches anew in the foreground), kept for stale-if-error. Its TTL is a
    # millisecond, not 0 s: Varnish's lookup skips a copy whose TTL is 0 s, even for errors.
    if (std.integer(var.get("edge-fetch-began"), 0)
            <= std.integer(var.global_get("edge-purged-at"), 0)) {
        std.log("edge: fetch began before the last purge, stored stale");
        set beresp.ttl = 1ms;
    }
    return (deliver);
}

sub vcl_backend_error {
    if (bereq.is_bgfetch || bereq.http.x-edge-stale == "fetch") {
        return (abandon);
    }
    # The origin did not answer at all (refused, timed out): a problem, as the service's.
    set beresp.http.Content-Type = "application/problem+json";
    set beresp.http.Cache-Control = "no-store";
    set beresp.http.Retry-After = "5";
    set beresp.body = {"{"type": "about:blank", "title": "Service unavailable", "status": 503, "detail": "The service does not answer; retry after Retry-After seconds.""} + "}";
    return (deliver);
}

sub vcl_synth {
    if (resp.status == 503 && req.http.x-edge-stale == "fetch") {
        # The origin failed the fetch of a purged or expired copy: serve that copy.
        set req.http.x-edge-stale = "serve";
        return (restart);
    }
    set resp.http.Cache-Control = "no-store";
    if (req.method == "PURGE" && resp.status == 200) {
        set resp.http.Content-Type = "text/plain; charset=utf-8";
        set resp.http.xkey-purged = req.http.x-edge-purged;
        set resp.body = req.http.x-edge-purged + {" objects soft-purged
"};
        return (deliver);
    }
    set resp.http.Content-Type = "application/problem+json";
    if (resp.status == 503) {
        set resp.http.Retry-After = "5";
    }
    set resp.body = {"{"type": "about:blank", "title": ""} + resp.reason + {"", "status": "} + resp.status + "}";
    return (deliver);
}

sub vcl_deliver {
    call edge_conditions_as_origin;
    unset resp.http.xkey;
    unset resp.http.x-edge-ttl;
    unset resp.http.x-edge-swr;
    # A stored copy carries the id of the request that filled it: each answer gets its own.
    set resp.http.X-Request-ID = req.http.X-Request-ID;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
        # What the origin counted for the client that filled the copy; an answer from the edge
        # counts against no limit.
        unset resp.http.RateLimit;
        unset resp.http.RateLimit-Policy;
    } else {
        set resp.http.X-Cache = "MISS";
    }
}

# What Varnish evaluates on a copy after vcl_deliver (a 304, a 206, a 416), narrowed to what the
# origin would evaluate on the same request, so that an answer from a copy is the origin's.
sub edge_conditions_as_origin {
    # A Range: the origin serves one range of bytes of a static file (whitenoise; the origin
    # marks those `static`), and ignores any other (the API, feeds, pages: a 200 in full), as it
    # ignores a range it cannot read (several, `x`). The copy answers the same.
    if (resp.http.xkey !~ "(^| )static( |$)" || req.http.Range !~ "^bytes=([0-9]+-[0-9]*|-[0-9]+)$") {
        unset req.http.Range;
        unset req.http.If-Range;
    }
    # If-Modified-Since: the origin compares it with the Last-Modified it sends, and answers
    # in full when it sends none; Varnish would compare it with the time of its fetch.
    if (!resp.http.Last-Modified) {
        unset req.http.If-Modified-Since;
    }
}

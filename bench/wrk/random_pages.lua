-- A page of blog 1's articles at random: a random order of BENCH_SORTS (comma-separated `sort`
-- values; an empty one is the default order) and a random pageIndex of 1 to BENCH_PAGES, so
-- that no two requests in a row repeat a page (the representation cache cannot answer them).
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")

statuses = {}
local sorts = {}
local pages
local prefix

function init(args)
   for sort in ((os.getenv("BENCH_SORTS") or "") .. ","):gmatch("([^,]*),") do
      table.insert(sorts, sort)
   end
   pages = tonumber(os.getenv("BENCH_PAGES"))
   prefix = os.getenv("BENCH_PAGE_PREFIX")
   math.randomseed(os.time() + thread_number * 7919)
end

function request()
   local sort = sorts[math.random(#sorts)]
   local path = prefix .. "?pageSize=10&pageIndex=" .. math.random(pages)
   if sort ~= "" then
      path = path .. "&sort=" .. sort
   end
   return wrk.format("GET", path, {["Accept"] = "application/hal+json"})
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
end

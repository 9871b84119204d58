/* The browsable API's HAL additions (templates/rest_framework/hal_api.html). A static file: the
 * site's Content-Security-Policy allows scripts from this site only, never inline ones.
 *
 * - A templated link's form expands its RFC 6570 template with the values typed in and opens
 *   the result (an empty field is an undefined variable, left out).
 * - The write forms (DRF's ajax-form.js sends them with jQuery) get the X-Access-Token and
 *   If-Match typed into the page as request headers, and a browser's Accept, so that an error
 *   comes back as the browsable page of the problem.
 * - "JSON" fetches the same URL with Accept: application/hal+json and shows the answer as is.
 */
(function () {
  'use strict';

  var NAVIGATION_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  var TOKEN_KEY = 'hal-browser:X-Access-Token';

  // RFC 6570 section 3.2 (level 3), per operator: first, separator, named, if empty,
  // reserved characters allowed.
  var OPERATORS = {
    '': ['', ',', false, '', false],
    '+': ['', ',', false, '', true],
    '#': ['#', ',', false, '', true],
    '.': ['.', '.', false, '', false],
    '/': ['/', '/', false, '', false],
    ';': [';', ';', true, '', false],
    '?': ['?', '&', true, '=', false],
    '&': ['&', '&', true, '=', false]
  };

  function encode(value, allowReserved) {
    if (allowReserved) {
      return encodeURI(value);
    }
    // Only the unreserved characters stay as they are (RFC 3986 section 2.3).
    return encodeURIComponent(value).replace(/[!'()*]/g, function (c) {
      return '%' + c.charCodeAt(0).toString(16).toUpperCase();
    });
  }

  function expand(template, values) {
    return template.replace(/\{([+#./;?&]?)([^}]*)\}/g, function (match, operator, list) {
      var spec = OPERATORS[operator];
      var parts = [];
      list.split(',').forEach(function (varspec) {
        var prefix = /:(\d+)$/.exec(varspec);
        var name = varspec.replace(/(\*|:\d+)$/, '');
        var value = values[name];
        if (value === undefined) {
          return;
        }
        if (prefix) {
          value = value.slice(0, Number(prefix[1]));
        }
        var encoded = encode(value, spec[4]);
        if (!spec[2]) {
          parts.push(encoded);
        } else {
          parts.push(name + (value === '' ? spec[3] : '=' + encoded));
        }
      });
      return parts.length ? spec[0] + parts.join(spec[1]) : '';
    });
  }

  function followTemplate(event) {
    event.preventDefault();
    var form = event.currentTarget;
    var values = {};
    Array.prototype.forEach.call(form.querySelectorAll('input[name]'), function (input) {
      if (input.value !== '') {
        values[input.name] = input.value;
      }
    });
    window.location.assign(expand(form.getAttribute('data-template'), values));
  }

  function fieldValue(id) {
    var field = document.getElementById(id);
    return field ? field.value.trim() : '';
  }

  // Runs before jQuery sets the request's headers, for every $.ajax of ajax-form.js.
  $.ajaxPrefilter(function (options) {
    if (options.crossDomain) {
      return;
    }
    var method = (options.type || 'GET').toUpperCase();
    options.headers = options.headers || {};
    options.headers.Accept = NAVIGATION_ACCEPT;
    var token = fieldValue('access-token');
    if (token) {
      options.headers['X-Access-Token'] = token;
    }
    var ifMatch = fieldValue('if-match');
    if (ifMatch && (method === 'PUT' || method === 'DELETE')) {
      options.headers['If-Match'] = ifMatch;
    }
  });

  // The token stays for this tab (sessionStorage, never a cookie), so that it survives the page
  // that a write's answer replaces this one with.
  function keepToken() {
    var field = document.getElementById('access-token');
    if (!field) {
      return;
    }
    try {
      field.value = window.sessionStorage.getItem(TOKEN_KEY) || '';
      field.addEventListener('input', function () {
        if (field.value) {
          window.sessionStorage.setItem(TOKEN_KEY, field.value);
        } else {
          window.sessionStorage.removeItem(TOKEN_KEY);
        }
      });
    } catch (error) {
      // Storage is off: the field still works for this page.
    }
  }

  function showJson(event) {
    event.preventDefault();
    var output = document.getElementById('json-view-body');
    var show = function (text) {
      output.textContent = text;
      output.hidden = false;
      document.getElementById('json-view').scrollIntoView();
    };
    var request = {headers: {Accept: 'application/hal+json'}, cache: 'no-store'};
    fetch(event.currentTarget.getAttribute('data-url'), request).then(function (response) {
      return response.text().then(function (text) {
        var lines = [('HTTP ' + response.status + ' ' + response.statusText).trim()];
        ['Content-Type', 'ETag', 'Last-Modified'].forEach(function (name) {
          var value = response.headers.get(name);
          if (value) {
            lines.push(name + ': ' + value);
          }
        });
        show(lines.join('\n') + '\n\n' + text);
      });
    }, function (error) {
      show('The request failed: ' + error);
    });
  }

  $(function () {
    if (window.prettyPrint) {
      window.prettyPrint();
    }
    $('form.hal-template').on('submit', followTemplate);
    $('#json-view-button').on('click', showJson);
    keepToken();
  });
}());

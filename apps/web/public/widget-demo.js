// Only for the demo host page: the ids come from the query string instead of being pasted in. A
// file, not an inline script, so the page holds the console's CSP (script-src 'self').
(function () {
  var query = new URLSearchParams(location.search);
  var script = document.createElement('script');
  script.src = '/widget.js';
  script.async = true;
  script.dataset.tenant = query.get('tenant') || '';
  script.dataset.line = query.get('line') || '';
  if (query.get('lang')) script.dataset.lang = query.get('lang');
  document.body.appendChild(script);
})();

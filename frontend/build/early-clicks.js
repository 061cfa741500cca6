/*
 * Loaded (async) by every prerendered page: between the page showing and React taking it over, a click on a
 * button, tab, checkbox or label does nothing. This keeps those clicks and src/main.tsx replays them once the page
 * is hydrated. Links are left alone: they simply load the next (prerendered) page. Plain ES5, no imports.
 */
(function () {
  if (window.__globApp) return; // the app already runs: nothing to bridge
  var queue = [];
  var selector = 'button, [role="button"], [role="tab"], input[type="checkbox"], input[type="radio"], label';
  function keep(event) {
    var target = event.target && event.target.closest ? event.target.closest(selector) : null;
    if (!target || target.disabled || target.closest('a[href]')) return;
    event.preventDefault();
    queue.push(target);
  }
  document.addEventListener('click', keep, true);
  window.__globEarlyClicks = {
    /** Stops keeping clicks (React listens from now on) and hands over those kept so far. */
    stop: function () {
      document.removeEventListener('click', keep, true);
      var kept = queue;
      queue = [];
      return kept;
    },
  };
})();

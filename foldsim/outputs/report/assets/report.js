/* foldsim report and browser: filters and pages over the item cards (no network, no libraries).
   Every card waits in a <template> (parsed, never laid out); only the current page's cards are
   cloned into #items, so thousands of items cost no layout time. */
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var list = document.getElementById("items");
  if (!form || !list) { return; }
  var items = Array.prototype.slice.call(document.querySelectorAll("#item-store > template.item-t"));
  var models = parseInt(document.body.getAttribute("data-models") || "0", 10);
  var pagers = document.querySelectorAll(".pager");
  var bottom = document.querySelector(".pager.bottom");
  var top = pagers[0];
  var page = 0;

  if (bottom && top && top !== bottom) { bottom.innerHTML = top.innerHTML; }

  function value(name) {
    var field = form.elements.namedItem(name);
    return field ? field.value : "";
  }

  function verdicts(item) {
    var out = [];
    for (var m = 0; m < models; m++) { out.push(item.getAttribute("data-v" + m) || ""); }
    return out;
  }

  function verdictMatches(item, verdict, model) {
    if (!verdict) { return true; }
    var all = verdicts(item);
    if (verdict === "disagree") {
      var right = all.map(function (v) { return v === "correct"; });
      return right.some(function (r) { return r !== right[0]; });
    }
    if (model !== "") { return all[parseInt(model, 10)] === verdict; }
    return all.indexOf(verdict) >= 0;
  }

  function matches(item) {
    var pattern = value("pattern"), level = value("level"), check = value("check");
    var search = value("id").trim().toLowerCase();
    if (pattern && item.getAttribute("data-pattern") !== pattern) { return false; }
    if (level && item.getAttribute("data-level") !== level) { return false; }
    if (check && item.getAttribute("data-check") !== check) { return false; }
    if (search && (item.getAttribute("data-id") || "").toLowerCase().indexOf(search) < 0) { return false; }
    return verdictMatches(item, value("verdict"), value("model"));
  }

  function showModel(model) {
    var parts = list.querySelectorAll("[data-model]");
    for (var i = 0; i < parts.length; i++) {
      parts[i].hidden = model !== "" && parts[i].getAttribute("data-model") !== model;
    }
  }

  function render() {
    var size = parseInt(value("size") || "10", 10);
    var hits = items.filter(matches);
    var pages = Math.max(1, Math.ceil(hits.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    var cards = hits.slice(page * size, (page + 1) * size).map(function (item) { return item.content.cloneNode(true); });
    list.replaceChildren.apply(list, cards);
    var first = hits.length ? page * size + 1 : 0;
    var last = Math.min(hits.length, (page + 1) * size);
    var text = hits.length + " of " + items.length + " items match · showing " + first + "–" + last +
      " · page " + (page + 1) + " of " + pages;
    document.querySelectorAll(".pager").forEach(function (pager) {
      var status = pager.querySelector(".status");
      if (status) { status.textContent = text; }
      pager.querySelectorAll("button").forEach(function (button) {
        var step = parseInt(button.getAttribute("data-step"), 10);
        button.disabled = step < 0 ? page === 0 : page >= pages - 1;
      });
    });
    showModel(value("model"));
  }

  function jumpToHash() {
    var key = location.hash ? location.hash.slice(1) : "";
    var index = -1;
    items.forEach(function (item, i) { if (item.getAttribute("data-key") === key) { index = i; } });
    if (index < 0) { return; }
    form.reset();
    var size = parseInt(value("size") || "10", 10);
    page = Math.floor(index / size);
    render();
    var card = document.getElementById(key);
    if (card) { card.scrollIntoView(); }
  }

  form.addEventListener("change", function () { page = 0; render(); });
  form.addEventListener("input", function () { page = 0; render(); });
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".pager button") : null;
    if (!button) { return; }
    page += parseInt(button.getAttribute("data-step"), 10);
    render();
    list.scrollIntoView();
  });
  window.addEventListener("hashchange", jumpToHash);
  render();
  jumpToHash();
}());

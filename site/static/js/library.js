// Before htmx saves the library page for Back (it keeps the page's HTML), write what the reader
// typed into the search box into its value attribute: a typed value is no attribute, so the saved
// page would come back with the cases of a search and an empty box. Without JavaScript there is
// no htmx: Back shows the page the server rendered, box filled.
//
// A part still being swapped in when the page is saved (the graph panel loads after the list, so
// a quick click saves it mid-settle) is saved settled: htmx's snapshot drops only its request
// class, and a page restored by Back would keep the added/settling/swapping classes for good.
(function () {
  "use strict";
  document.addEventListener("htmx:beforeHistorySave", function (event) {
    var boxes = document.querySelectorAll("#library-form input[type=search]");
    Array.prototype.forEach.call(boxes, function (box) {
      box.setAttribute("value", box.value);
    });
    var saved = (event.detail && event.detail.historyElt) || document.body;
    var config = window.htmx.config;
    [config.addedClass, config.settlingClass, config.swappingClass].forEach(function (name) {
      Array.prototype.forEach.call(saved.querySelectorAll("." + name), function (part) {
        part.classList.remove(name);
      });
    });
  });
}());

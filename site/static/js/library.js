// Before htmx saves the library page for Back (it keeps the page's HTML), write what the reader
// typed into the search box into its value attribute: a typed value is no attribute, so the saved
// page would come back with the cases of a search and an empty box. Without JavaScript there is
// no htmx: Back shows the page the server rendered, box filled.
(function () {
  "use strict";
  document.addEventListener("htmx:beforeHistorySave", function () {
    var boxes = document.querySelectorAll("#library-form input[type=search]");
    Array.prototype.forEach.call(boxes, function (box) {
      box.setAttribute("value", box.value);
    });
  });
}());

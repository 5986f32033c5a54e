// Pointing at (or tabbing to) a node of the graph highlights every link it has, including those
// to columns that are not its neighbours. The drawing and its links work without this script.
(function () {
  "use strict";
  function wire(svg) {
    if (svg.dataset.wired) { return; }
    svg.dataset.wired = "true";
    var edges = Array.prototype.slice.call(svg.querySelectorAll(".edge"));
    var nodes = Array.prototype.slice.call(svg.querySelectorAll("a.node"));
    function light(id) {
      var lit = {};
      lit[id] = true;
      svg.classList.add("highlighting");
      edges.forEach(function (e) {
        var on = e.dataset.a === id || e.dataset.b === id;
        e.classList.toggle("lit", on);
        if (on) { lit[e.dataset.a] = true; lit[e.dataset.b] = true; }
      });
      nodes.forEach(function (n) { n.classList.toggle("lit", !!lit[n.dataset.id]); });
    }
    function clear() {
      svg.classList.remove("highlighting");
      edges.forEach(function (e) { e.classList.remove("lit"); });
      nodes.forEach(function (n) { n.classList.remove("lit"); });
    }
    nodes.forEach(function (n) {
      n.addEventListener("mouseenter", function () { light(n.dataset.id); });
      n.addEventListener("focus", function () { light(n.dataset.id); });
      n.addEventListener("mouseleave", clear);
      n.addEventListener("blur", clear);
    });
  }
  function wireAll() { document.querySelectorAll("svg.graph-svg").forEach(wire); }
  wireAll();
  document.addEventListener("htmx:afterSettle", wireAll);
})();

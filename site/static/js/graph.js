// Draws the library graph with the vendored Cytoscape.js; the page's tables work without it.
(function () {
  "use strict";
  var box = document.getElementById("graph-canvas");
  if (!box || typeof cytoscape === "undefined") { return; }
  var colours = {
    "case": "#1d2330", "root_cause": "#b3261e", "component": "#1f5fbf", "symptom": "#8a4b00",
    "contributing_factor": "#6b3fa0", "remediation": "#1b7a3d", "lesson": "#00707a"
  };
  fetch(box.dataset.url, { headers: { "Accept": "application/json" } })
    .then(function (response) { return response.json(); })
    .then(function (body) {
      if (!body.elements) { return; }
      var cy = cytoscape({
        container: box,
        elements: body.elements,
        wheelSensitivity: 0.2,
        style: [
          { selector: "node", style: {
              "background-color": function (n) { return colours[n.data("kind")] || "#555"; },
              "label": "data(label)", "font-size": 9, "text-wrap": "ellipsis", "text-max-width": 140,
              "width": function (n) { return 10 + 4 * Math.min(n.data("cases") || 1, 12); },
              "height": function (n) { return 10 + 4 * Math.min(n.data("cases") || 1, 12); },
              "shape": function (n) { return n.data("kind") === "case" ? "round-rectangle" : "ellipse"; }
          } },
          { selector: "edge", style: { "width": 1, "line-color": "#c5cad3" } },
          { selector: ".faded", style: { "opacity": 0.15 } }
        ],
        layout: { name: "cose", animate: false, nodeRepulsion: 9000, idealEdgeLength: 60 }
      });
      cy.on("tap", "node", function (event) {
        var node = event.target;
        cy.elements().addClass("faded");
        node.closedNeighborhood().removeClass("faded");
        var status = document.getElementById("graph-status");
        if (status) {
          status.textContent = node.data("label") + ": " + node.degree() + " links";
        }
      });
      cy.on("dbltap", "node", function (event) {
        var url = event.target.data("url");
        if (url) { window.location.href = url; }
      });
      cy.on("tap", function (event) { if (event.target === cy) { cy.elements().removeClass("faded"); } });
      box.setAttribute("data-ready", "true");
    });
})();

// Draws /graph.json with Cytoscape.js. The page works without this: the table below the
// drawing holds the same links.
(function () {
  "use strict";
  var canvas = document.getElementById("graph-canvas");
  if (!canvas || !window.cytoscape || !window.fetch) return;

  var LABEL_PX = 11;  // the smallest label, in pixels at the default zoom

  function scale(value, max, low, high) {
    return low + (high - low) * (max ? value / max : 0);
  }

  fetch(canvas.dataset.url, { headers: { Accept: "application/json" } })
    .then(function (response) { return response.json(); })
    .then(function (data) {
      var maxCount = Math.max.apply(null, [1].concat(data.nodes.map(function (n) { return n.count; })));
      var maxWeight = Math.max.apply(null, [1].concat(data.edges.map(function (e) { return e.weight; })));
      // The layout starts from the same places, with the nodes in the same order, each
      // time, so every reader gets the same drawing: nodes on a spiral, the most counted
      // in the middle. (From random places, two phone layouts in five piled most labels on
      // each other.)
      function compare(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
      function edgeId(edge) { return edge.source + "~" + edge.target; }
      function spiral(rank) {
        var radius = 40 * Math.sqrt(rank), angle = rank * 2.39996;  // the golden angle
        return { x: radius * Math.cos(angle), y: radius * Math.sin(angle) };
      }
      data.nodes.sort(function (a, b) { return b.count - a.count || compare(a.id, b.id); });
      data.edges.sort(function (a, b) { return compare(edgeId(a), edgeId(b)); });
      var elements = data.nodes.map(function (node, rank) {
        return { position: spiral(rank), data: {
          id: node.id, label: node.label + (node.lang_mark ? " " + node.lang_mark : "") + " (" + node.count + ")", url: node.url,
          colour: node.colour || "#333", size: scale(node.count, maxCount, 16, 60),
          own: node.kind === data.tab ? 1 : 0
        } };
      }).concat(data.edges.map(function (edge) {
        return { data: {
          id: edgeId(edge), source: edge.source, target: edge.target,
          width: scale(edge.weight, maxWeight, 1, 8)
        } };
      }));
      var cy = window.cytoscape({
        container: canvas,
        elements: elements,
        wheelSensitivity: 0.3,
        style: [
          { selector: "node", style: {
            "background-color": "data(colour)", width: "data(size)", height: "data(size)",
            label: "data(label)", "font-size": LABEL_PX, "text-valign": "bottom", "text-margin-y": 3,
            "text-wrap": "ellipsis", "text-max-width": 140, color: "#1d2327",
            "text-background-color": "#fff", "text-background-opacity": 0.8, "text-background-padding": 1
          } },
          { selector: "edge", style: {
            width: "data(width)", "line-color": "#9aa5b1", opacity: 0.7, "curve-style": "haystack"
          } },
          { selector: "node[own = 0]", style: { color: "#5b6670" } },
          { selector: "node[own = 1]", style: { "font-size": LABEL_PX + 1, "font-weight": "bold", "z-index": 10 } },
          { selector: "node:selected", style: { "border-width": 3, "border-color": "#f0a500" } }
        ],
        layout: {
          name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: true, padding: 20,
          nodeRepulsion: function () { return 20000; }, idealEdgeLength: function () { return 70; },
          gravity: 1.2, numIter: 2500, nodeOverlap: 12
        }
      });
      // Fit everything, but never so small that labels cannot be read (below LABEL_PX on
      // the screen): zoom and pan reach the rest.
      if (cy.zoom() < 1) {
        cy.zoom(1);
        cy.center();
      }
      cy.on("tap", "node", function (event) { window.location.href = event.target.data("url"); });
      cy.on("mouseover", "node", function () { canvas.style.cursor = "pointer"; });
      cy.on("mouseout", "node", function () { canvas.style.cursor = ""; });

      var tools = document.querySelector(".graph-tools");
      tools.hidden = false;
      tools.addEventListener("click", function (event) {
        var action = event.target.dataset.graph;
        if (action === "zoom-in") cy.zoom({ level: cy.zoom() * 1.25, renderedPosition: centre() });
        if (action === "zoom-out") cy.zoom({ level: cy.zoom() / 1.25, renderedPosition: centre() });
        if (action === "fit") cy.fit(undefined, 20);
      });
      function centre() { return { x: canvas.clientWidth / 2, y: canvas.clientHeight / 2 }; }
      canvas.addEventListener("keydown", function (event) {
        var step = 40, moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
        if (moves[event.key]) { cy.panBy({ x: moves[event.key][0], y: moves[event.key][1] }); event.preventDefault(); }
        if (event.key === "+" || event.key === "=") cy.zoom({ level: cy.zoom() * 1.25, renderedPosition: centre() });
        if (event.key === "-") cy.zoom({ level: cy.zoom() / 1.25, renderedPosition: centre() });
      });
      canvas.dataset.ready = String(data.nodes.length);
      window.incidentGraph = cy;  // for the browser tests
    })
    .catch(function () { canvas.dataset.ready = "error"; });
})();

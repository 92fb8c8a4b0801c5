// share.js draws the charts of duplexscope's server-rendered pages. The
// chart options are built in Go (go-echarts) and embedded as JSON blocks;
// this file only hands them to the vendored echarts runtime.
(function () {
  "use strict";
  function draw() {
    var blocks = document.querySelectorAll('script[type="application/json"][data-chart]');
    if (typeof echarts === "undefined") {
      return;
    }
    var all = [];
    blocks.forEach(function (el) {
      var box = document.getElementById(el.getAttribute("data-chart"));
      if (!box) return;
      var opt;
      try { opt = JSON.parse(el.textContent); } catch (e) { return; }
      box.textContent = "";
      var c = echarts.init(box, null, { renderer: "canvas" });
      c.setOption(opt);
      box.setAttribute("data-rendered", "1");
      all.push(c);
    });
    window.addEventListener("resize", function () { all.forEach(function (c) { c.resize(); }); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();

// listen.js: the share page's transcript lines seek the session's player
// to the line's time (seconds since stream start, the player's own
// timeline) and play from there. No inline script: the page's CSP allows
// scripts from this server only; the HTML export inlines this file.
(function () {
  "use strict";
  function bind() {
    document.querySelectorAll("button.seek[data-t][data-session]").forEach(function (b) {
      b.addEventListener("click", function () {
        var fig = document.querySelector('figure.listen[data-session="' + CSS.escape(b.getAttribute("data-session")) + '"]');
        var a = fig && fig.querySelector('audio[data-lane="mix"]');
        if (!a) return;
        a.currentTime = parseFloat(b.getAttribute("data-t")) || 0;
        var p = a.play();
        if (p && p.catch) p.catch(function () {});
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bind);
  } else {
    bind();
  }
})();

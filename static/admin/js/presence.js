/* The case page says it is still open: a light POST every minute or so while its tab is
   visible, and at once when it becomes visible again; the answer says who else is here. */
(function () {
  "use strict";

  const line = document.getElementById("case-presence");
  if (!line || !line.dataset.heartbeatUrl) {
    return;
  }
  const every = Math.max(1, Number(line.dataset.every) || 60) * 1000;

  function csrfToken() {
    const input = document.querySelector("[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  async function beat() {
    if (document.visibilityState !== "visible") {
      return;
    }
    const body = new FormData();
    body.append("csrfmiddlewaretoken", csrfToken());
    try {
      const response = await fetch(line.dataset.heartbeatUrl, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" },
      });
      if (response.ok) {
        line.innerHTML = (await response.text()).trim();
      }
    } catch (error) {
      // Offline for a moment: the next beat tries again.
    }
  }

  window.setInterval(beat, every);
  document.addEventListener("visibilitychange", beat);
})();

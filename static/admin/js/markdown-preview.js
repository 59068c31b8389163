// The case form's live preview (cases/admin/markdown_preview.py): beside each long text,
// the HTML the public page will show, rendered by the server's own renderer, refreshed
// 300 ms after the editor stops typing. The form works without it.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.FormData) return;
  var config = script.dataset;
  var fields = new RegExp(config.fields);
  var batchSize = parseInt(config.batch, 10) || 20;
  var DELAY = 300;

  // One preview a textarea: its box, the request under way, the last text sent.
  function Preview(textarea) {
    this.textarea = textarea;
    this.sent = null;
    this.timer = null;
    var language = (textarea.name.match(/_([a-z]{2})$/) || [])[1] || "";
    this.box = document.createElement("div");
    this.box.className = "markdown-preview";
    var label = document.createElement("div");
    label.className = "markdown-preview-label";
    label.textContent = config.label + (language ? " (" + language + ")" : "");
    this.body = document.createElement("div");
    this.body.className = "markdown-preview-body";
    this.body.setAttribute("aria-live", "polite");
    this.body.dataset.empty = config.empty;
    if (language) this.body.lang = language;
    this.status = document.createElement("div");
    this.status.className = "markdown-preview-status";
    this.status.setAttribute("role", "status");
    this.box.append(label, this.body, this.status);
    textarea.insertAdjacentElement("afterend", this.box);
    textarea.dataset.markdownPreview = "on";
    var preview = this;
    textarea.addEventListener("input", function () {
      clearTimeout(preview.timer);
      preview.timer = setTimeout(function () { send([preview]); }, DELAY);
    });
  }

  Preview.prototype.show = function (result) {
    if (result.error) {
      this.status.textContent = result.error;
      this.box.classList.add("markdown-preview-refused");
      return;
    }
    this.status.textContent = "";
    this.box.classList.remove("markdown-preview-refused", "markdown-preview-failed");
    // The server's HTML: markdown-it without raw HTML, then nh3's allow-list.
    this.body.innerHTML = result.html;
  };

  Preview.prototype.failed = function () {
    this.status.textContent = config.failed;
    this.box.classList.add("markdown-preview-failed");
  };

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  var generation = 0; // a newer answer for a preview wins over an older one

  function send(previews) {
    var waiting = previews.filter(function (p) { return p.textarea.value !== p.sent; });
    for (var start = 0; start < waiting.length; start += batchSize) {
      post(waiting.slice(start, start + batchSize));
    }
  }

  function post(previews) {
    var body = new FormData();
    var ticket = ++generation;
    body.append("csrfmiddlewaretoken", csrfToken());
    previews.forEach(function (p) {
      p.sent = p.textarea.value;
      p.ticket = ticket;
      body.append("field", p.textarea.name);
      body.append("text", p.sent);
    });
    fetch(config.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (data) {
        (data.previews || []).forEach(function (result, index) {
          var p = previews[index];
          if (p && p.ticket === ticket && result.field === p.textarea.name) p.show(result);
        });
      })
      .catch(function () {
        previews.forEach(function (p) {
          if (p.ticket === ticket) {
            p.sent = null; // try again on the next keystroke
            p.failed();
          }
        });
      });
  }

  // The hint, once above each group of previewed texts.
  function addHint(textarea) {
    var group = textarea.closest(".inline-group") || textarea.closest("fieldset");
    if (!group || group.querySelector(".markdown-hint")) return;
    var hint = document.createElement("p");
    hint.className = "markdown-hint help";
    hint.textContent = config.hint;
    var heading = group.querySelector("h2");
    if (heading) heading.insertAdjacentElement("afterend", hint);
    else group.prepend(hint);
  }

  function attach(root) {
    var created = [];
    root.querySelectorAll("textarea").forEach(function (textarea) {
      if (!fields.test(textarea.name) || textarea.dataset.markdownPreview) return;
      addHint(textarea);
      created.push(new Preview(textarea));
    });
    send(created);
  }

  function start() {
    var form = document.querySelector("#content-main form");
    if (!form) return;
    attach(form);
    // A row added to the steps after the page loaded (Django's inlines.js).
    document.addEventListener("formset:added", function (event) {
      attach(event.target);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

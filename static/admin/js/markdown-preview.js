// The case form's live preview (cases/admin/markdown_preview.py): beside each long text,
// the HTML the public page will show, rendered by the server's own renderer, refreshed
// 300 ms after the editor stops typing. The form works without it.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.fetch || !window.FormData) return;
  var config = script.dataset;
  // [[pattern of the textareas' names, the most characters their text may have], ...]
  var limits = JSON.parse(config.limits).map(function (rule) {
    return { names: new RegExp(rule[0]), max: rule[1] };
  });
  var batchSize = parseInt(config.batch, 10) || 20;
  var DELAY = 300;
  var generation = 0; // each request's ticket: a newer answer for a preview wins

  function limitOf(textarea) {
    var rule = limits.find(function (r) { return r.names.test(textarea.name); });
    return rule ? rule.max : null;
  }

  // Characters as the server counts them: code points, after the browser sends each line
  // break as CR LF.
  function length(text) {
    return Array.from(text.replace(/\r?\n/g, "\r\n")).length;
  }

  function tooLong(count, max) {
    return config.tooLong
      .replace("%(max)s", max.toLocaleString("en-US"))
      .replace("%(count)s", count.toLocaleString("en-US"));
  }

  // One preview a textarea: its box, the request under way, the last text sent.
  function Preview(textarea, max) {
    this.textarea = textarea;
    this.max = max;
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
    this.box.classList.remove("markdown-preview-refused", "markdown-preview-failed");
    if (result.error) {
      this.status.textContent = result.error;
      this.box.classList.add("markdown-preview-refused");
      return;
    }
    this.status.textContent = "";
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

  function send(previews) {
    var waiting = previews.filter(function (p) {
      if (p.textarea.value === p.sent) return false;
      var count = length(p.textarea.value);
      if (count <= p.max) return true;
      p.sent = p.textarea.value;
      p.ticket = ++generation; // an answer still on its way is out of date
      p.show({ error: tooLong(count, p.max) });
      return false;
    });
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
    // A folding section's heading sits in its <summary>: the hint goes under the band.
    if (heading) (heading.closest("summary") || heading).insertAdjacentElement("afterend", hint);
    else group.prepend(hint);
  }

  function attach(root) {
    var created = [];
    root.querySelectorAll("textarea").forEach(function (textarea) {
      var max = limitOf(textarea);
      if (max === null || textarea.dataset.markdownPreview) return;
      addHint(textarea);
      created.push(new Preview(textarea, max));
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

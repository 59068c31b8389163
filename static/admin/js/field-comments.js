/* Review comments beside the fields of the case form.

   Without this script the comments panel above the form lists every thread with its forms
   (which stand outside the case form: HTML nests no forms, so a thread's fields and buttons
   name theirs with form="..."). With it, each open thread moves beside the field it is
   about, a reviewer gets a "Comment" control beside each field, and the threads' buttons
   are sent with fetch(), so that an editor's unsaved edits stay in the form. */
(function () {
  "use strict";

  const panel = document.getElementById("review-comments");
  const caseForm = document.getElementById("case_form");
  if (!panel || !caseForm) {
    return;
  }
  const addUrl = panel.dataset.addUrl;
  const texts = {
    comment: panel.dataset.labelComment || "Comment",
    add: panel.dataset.labelAdd || "Add comment",
    cancel: panel.dataset.labelCancel || "Cancel",
    on: panel.dataset.labelOn || "Comment on %(field)s",
    failed: panel.dataset.labelFailed || "Not sent.",
  };

  function csrfToken() {
    const input = document.querySelector("[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  /* Where the form shows a field: a case field's box, a field of an inline's row, the row
     itself, or a whole inline. */
  function anchorOf(data) {
    if (data.group) {
      return document.getElementById(data.group);
    }
    let scope = caseForm;
    if (data.row) {
      scope = document.getElementById(data.row);
      if (!scope || !data.field) {
        return scope;
      }
    }
    if (!data.field) {
      return null;
    }
    const name = CSS.escape(data.field);
    return (
      scope.querySelector(".fieldBox.field-" + name) ||
      scope.querySelector(".form-row.field-" + name) ||
      scope.querySelector("td.field-" + name)
    );
  }

  /* The box beside (below) a field that holds its "Comment" controls, then its threads. */
  function boxOf(anchor) {
    const group = anchor.classList.contains("inline-group");
    // An inline's box stands under its heading, inside it; a field's is its last child.
    let box = anchor.querySelector(group ? ".field-comments.of-inline" : ":scope > .field-comments");
    if (box) {
      return box;
    }
    box = document.createElement("div");
    box.className = "field-comments";
    const tools = document.createElement("div");
    tools.className = "field-comment-tools";
    box.appendChild(tools);
    if (anchor.tagName === "TR") {
      box.classList.add("in-table");
      const row = document.createElement("tr");
      row.className = "field-comments-row";
      const cell = document.createElement("td");
      cell.colSpan = anchor.children.length;
      cell.appendChild(box);
      row.appendChild(cell);
      anchor.after(row);
      return box;
    }
    if (group) {
      box.classList.add("of-inline");
      const heading = anchor.querySelector("h2");
      (heading || anchor.firstElementChild).after(box);
      return box;
    }
    anchor.appendChild(box);
    return box;
  }

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function showError(where, message) {
    let note = where.querySelector(":scope > .comment-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "errornote comment-error";
      note.setAttribute("role", "alert");
      where.appendChild(note);
    }
    note.textContent = message || texts.failed;
  }

  async function post(url, fields) {
    const body = new FormData();
    body.append("csrfmiddlewaretoken", csrfToken());
    for (const [name, value] of Object.entries(fields)) {
      body.append(name, value);
    }
    const response = await fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" },
    });
    const text = await response.text();
    return { ok: response.ok, text: text };
  }

  /* Each open thread beside its field; one whose field is not on the page stays in the
     panel. */
  function placeThreads() {
    for (const thread of panel.querySelectorAll(".comment-threads > .comment-thread")) {
      const anchor = anchorOf(thread.dataset);
      if (anchor) {
        boxOf(anchor).appendChild(thread);
        thread.classList.add("is-beside-field");
      }
    }
    panel.classList.add("threads-placed");
  }

  /* A thread's buttons (reply, resolve, reopen), sent without leaving the page. */
  document.addEventListener("click", async function (event) {
    const button = event.target.closest("button[data-comment-action]");
    if (!button) {
      return;
    }
    event.preventDefault();
    const thread = button.closest(".comment-thread");
    const answer = thread.querySelector("textarea.comment-answer");
    button.disabled = true;
    try {
      const result = await post(button.formAction, { text: answer ? answer.value : "" });
      if (result.ok) {
        const fresh = fragment(result.text);
        if (thread.classList.contains("is-beside-field")) {
          fresh.classList.add("is-beside-field");
        }
        thread.replaceWith(fresh);
      } else {
        showError(thread, result.text);
      }
    } catch (error) {
      showError(thread, texts.failed);
    } finally {
      button.disabled = false;
    }
  });

  /* A reviewer's "Comment" control beside each field the panel's list names. */
  function composerFor(anchor, path, label) {
    const box = boxOf(anchor);
    const tool = document.createElement("div");
    tool.className = "field-comment-tool";
    box.querySelector(":scope > .field-comment-tools").appendChild(tool);
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "field-comment-toggle";
    // Several lists share an inline (the terms): there the control names its list.
    toggle.textContent = anchor.classList.contains("inline-group")
      ? texts.on.replace("%(field)s", label)
      : texts.comment;
    toggle.setAttribute("aria-label", texts.on.replace("%(field)s", label));
    toggle.setAttribute("aria-expanded", "false");
    tool.appendChild(toggle);

    let composer = null;
    toggle.addEventListener("click", function () {
      if (composer) {
        composer.hidden = !composer.hidden;
        toggle.setAttribute("aria-expanded", String(!composer.hidden));
        if (!composer.hidden) {
          composer.querySelector("textarea").focus();
        }
        return;
      }
      composer = document.createElement("div");
      composer.className = "field-comment-composer";
      const text = document.createElement("textarea");
      text.rows = 2;
      text.setAttribute("aria-label", texts.on.replace("%(field)s", label));
      const send = document.createElement("button");
      send.type = "button";
      send.className = "button";
      send.textContent = texts.add;
      const cancel = document.createElement("button");
      cancel.type = "button";
      cancel.className = "field-comment-cancel";
      cancel.textContent = texts.cancel;
      composer.append(text, send, cancel);
      toggle.after(composer);
      toggle.setAttribute("aria-expanded", "true");
      text.focus();

      cancel.addEventListener("click", function () {
        composer.hidden = true;
        toggle.setAttribute("aria-expanded", "false");
        toggle.focus();
      });
      send.addEventListener("click", async function () {
        send.disabled = true;
        try {
          const result = await post(addUrl, { field_path: path, text: text.value });
          if (result.ok) {
            const thread = fragment(result.text);
            thread.classList.add("is-beside-field");
            box.appendChild(thread);
            text.value = "";
            composer.hidden = true;
            toggle.setAttribute("aria-expanded", "false");
            const old = composer.querySelector(".comment-error");
            if (old) {
              old.remove();
            }
          } else {
            showError(composer, result.text);
          }
        } catch (error) {
          showError(composer, texts.failed);
        } finally {
          send.disabled = false;
        }
      });
    });
  }

  function addControls() {
    if (!addUrl) {
      return;
    }
    for (const option of panel.querySelectorAll("#comment-add-field option[value]")) {
      if (!option.value) {
        continue;
      }
      // A whole step or source takes its comments from the panel's list; its texts and
      // the inlines have controls of their own.
      if (option.dataset.row && !option.dataset.field) {
        continue;
      }
      const anchor = anchorOf(option.dataset);
      if (anchor) {
        composerFor(anchor, option.value, option.textContent.trim());
      }
    }
  }

  placeThreads();
  addControls();
})();

"use strict";
// The case form's layout. Django renders a folding section as <details> without `open`:
// open those the server marked `start-open` (the story, and any section holding
// something). Grow each text box with its text where CSS `field-sizing` cannot.
{
    const growsByItself = window.CSS && CSS.supports("field-sizing", "content");

    function fit(textarea) {
        // Setting a style from a script file is no inline style: CSP allows it.
        textarea.style.height = "auto";
        textarea.style.height = `${textarea.scrollHeight + 2}px`;
    }

    function start() {
        const form = document.getElementById("case_form");
        if (!form) {
            return;
        }
        for (const details of form.querySelectorAll("fieldset.start-open > details")) {
            details.open = true;
        }
        if (growsByItself) {
            return;
        }
        form.addEventListener("input", (event) => {
            if (event.target.tagName === "TEXTAREA") {
                fit(event.target);
            }
        });
        form.addEventListener("toggle", (event) => {
            for (const textarea of event.target.querySelectorAll("textarea")) {
                fit(textarea);
            }
        }, true);
        for (const textarea of form.querySelectorAll("textarea")) {
            fit(textarea);
        }
    }

    if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", start);
    } else {
        start();
    }
}

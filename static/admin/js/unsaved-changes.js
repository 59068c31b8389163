"use strict";
// Leaving the case form with changes not saved asks first; submitting it (its save
// buttons) never does. What counts is what would be sent: the form's fields as the page
// finished loading, against the same fields on leaving. So an inline row or a link added
// or removed counts, a text typed and then undone does not, and neither do the
// autocompletes, which announce a "change" of each of their fields as they start.
// A page that came back with problems holds text not yet saved: it asks from the start.
{
    function fields(form) {
        const pairs = [];
        for (const [name, value] of new FormData(form)) {
            if (name !== "csrfmiddlewaretoken") {
                pairs.push([name, value]);
            }
        }
        return JSON.stringify(pairs);
    }

    function start() {
        const form = document.getElementById("case_form");
        if (!form) {
            return;
        }
        const cameBackWithProblems = form.querySelector(".errorlist, .errornote") !== null;
        let loaded = null;
        let submitting = false;
        const remember = () => {
            loaded = fields(form);
        };
        if (document.readyState === "complete") {
            remember();
        } else {
            window.addEventListener("load", remember);
        }
        form.addEventListener("submit", () => {
            submitting = true;
        });
        window.addEventListener("pageshow", () => {
            submitting = false;  // back from the browser's cache: ask again
        });
        window.addEventListener("beforeunload", (event) => {
            if (submitting || loaded === null) {
                return;
            }
            if (cameBackWithProblems || fields(form) !== loaded) {
                event.preventDefault();
                event.returnValue = "";  // what older browsers need to ask
            }
        });
    }

    if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", start);
    } else {
        start();
    }
}

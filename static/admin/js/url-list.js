"use strict";
// Documentation links, one input each (cases/admin/widgets.py LinkListWidget). Without
// this script the form shows the links and two empty inputs; with it, one empty input,
// a "Remove" button beside each link and an "Add a link" button below them.
{
    function button(label, className) {
        const element = document.createElement("button");
        element.type = "button";
        element.className = `button ${className}`;
        element.textContent = label;
        return element;
    }

    function setUp(widget) {
        const list = widget.querySelector(".url-list-items");
        const {addLabel, removeLabel, linkLabel, id} = widget.dataset;
        const maxLength = list.querySelector("input").maxLength;
        let made = list.children.length;

        function renumber() {
            list.querySelectorAll("input").forEach((input, index) => {
                input.setAttribute("aria-label", linkLabel.replace("%(number)s", index + 1));
            });
        }

        function withRemove(item) {
            const remove = button(removeLabel, "url-list-remove");
            remove.addEventListener("click", () => {
                item.remove();
                if (!list.querySelector("input")) {
                    list.append(emptyItem());
                }
                renumber();
                // A link removed is a change to save (unsaved-changes.js listens).
                list.dispatchEvent(new Event("change", {bubbles: true}));
            });
            item.querySelector("input").after(remove);  // before a problem shown under it
            return item;
        }

        function emptyItem() {
            const item = document.createElement("li");
            item.className = "url-list-item";
            const input = document.createElement("input");
            input.type = "url";
            input.name = widget.dataset.name;
            input.id = `${id}_${made++}`;
            input.className = "vURLField";
            input.maxLength = maxLength;
            item.append(input);
            return withRemove(item);
        }

        for (const spare of list.querySelectorAll(".url-list-spare")) {
            spare.remove();
        }
        for (const item of list.children) {
            withRemove(item);
        }
        const add = button(addLabel, "url-list-add");
        add.addEventListener("click", () => {
            const item = emptyItem();
            list.append(item);
            renumber();
            item.querySelector("input").focus();
        });
        widget.append(add);
    }

    function start() {
        document.querySelectorAll(".url-list").forEach(setUp);
    }

    if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", start);
    } else {
        start();
    }
}

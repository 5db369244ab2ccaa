// The in-page calculators: wires each <form class="dv-calculator"> to its family's arithmetic in
// js/calculators.js (generated at build time from the SymPy derivations; BigInt throughout). No count
// is computed here but the sum of the components. Runs on every page Material shows, instant
// navigation included.
(function () {
  "use strict";
  const LARGEST = 9223372036854775807n; // a tensor size is an int64, as the command line checks
  const format = (n) => n.toLocaleString("en-US");

  function setup(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    const family = window.DV_CALCULATORS[form.dataset.family];
    const preset = form.elements.preset;
    const cls = form.elements["class"];
    const inputs = family.sizes.map((name) => form.elements[name]);
    const message = form.querySelector(".dv-calc-message");
    const body = form.querySelector(".dv-calc-result tbody");
    const total = form.querySelector(".dv-calc-total");

    function sizes() {
      const values = {};
      const bad = [];
      const used = new Set(family.uses[cls.value]);
      for (const input of inputs) {
        input.disabled = !used.has(input.name); // a size this class does not have
        if (input.disabled) continue;
        const text = input.value.trim().replace(/[,_\s]/g, "");
        const ok = /^[0-9]+$/.test(text) && BigInt(text) >= 1n && BigInt(text) <= LARGEST;
        if (ok) values[input.name] = BigInt(text);
        else bad.push(input.name);
        input.setAttribute("aria-invalid", String(!ok));
      }
      return [values, bad];
    }

    // Sizes derived from others (BERT's head size is the width over the heads), which must divide.
    function derive(values) {
      for (const [size, numerator, denominator] of family.ratios) {
        if (values[numerator] % values[denominator] !== 0n) {
          return `${numerator} must be a multiple of ${denominator}: ${size} = ${numerator} / ${denominator} is the size of each head.`;
        }
        values[size] = values[numerator] / values[denominator];
      }
      return "";
    }

    function update() {
      const [values, bad] = sizes();
      body.replaceChildren();
      total.textContent = "";
      const problem = bad.length
        ? `Each size must be a whole number from 1 to ${format(LARGEST)}: check ${bad.join(", ")}.`
        : derive(values);
      if (problem) {
        message.textContent = problem;
        message.hidden = false;
        return;
      }
      message.hidden = true;
      let sum = 0n;
      for (const [name, count] of family.classes[cls.value]) {
        const n = count(values);
        sum += n;
        const row = body.insertRow();
        const code = document.createElement("code");
        code.textContent = name;
        row.insertCell().append(code);
        const cell = row.insertCell();
        cell.className = "dv-calc-count";
        cell.textContent = format(n);
      }
      total.textContent = format(sum);
    }

    function start() {
      const values = family.presets[preset.value];
      for (const input of inputs) input.value = String(values[input.name]);
      update();
    }

    form.addEventListener("submit", (event) => event.preventDefault());
    preset.addEventListener("change", start);
    cls.addEventListener("change", update);
    for (const input of inputs) input.addEventListener("input", update);
    update();
  }

  function init() {
    document.querySelectorAll("form.dv-calculator").forEach(setup);  // setup() sets a form up once
  }
  // Material's document$ gives each page that instant navigation loads; from disk (file://), where
  // instant navigation is off, it gives none, so the page that loads is set up on its own as well.
  if (window.document$) window.document$.subscribe(init);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

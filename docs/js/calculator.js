// The in-page calculators: wires each <form class="dv-calculator"> to its family's arithmetic in
// js/calculators.js (generated at build time from the SymPy derivations; BigInt throughout), which only a
// page with a calculator loads (hooks/shortcodes.py). No count is computed here: only the sum of the
// components, their shares of it and their bytes in the chosen data type (its bits are the form's, from
// derivations.storage), and the cache's bytes. Runs on every page Material shows, instant navigation
// included, and from disk.
(function () {
  "use strict";
  const LARGEST = 9223372036854775807n; // a tensor size is an int64, as the command line checks
  const format = (n) => n.toLocaleString("en-US");

  // n / total as a percentage with two decimals, rounded half up; a part too small for that says so.
  function share(n, total) {
    const hundredths = (n * 20000n / total + 1n) / 2n;
    if (hundredths === 0n && n > 0n) return "< 0.01%";
    return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, "0")}%`;
  }

  // Bytes in the largest unit that leaves at least 1, one decimal, rounded half up.
  function inUnit(bytes, units) {
    for (const [unit, size] of units) {
      if (bytes >= size) {
        const tenths = (bytes * 20n / size + 1n) / 2n;
        return `${format(tenths / 10n)}.${tenths % 10n} ${unit}`;
      }
    }
    return "";
  }
  const DECIMAL = [["TB", 10n ** 12n], ["GB", 10n ** 9n], ["MB", 10n ** 6n], ["kB", 10n ** 3n]];
  const BINARY = [["TiB", 2n ** 40n], ["GiB", 2n ** 30n], ["MiB", 2n ** 20n], ["KiB", 2n ** 10n]];
  // Bytes in units that say what they are: a MB is 10^6 bytes, a MiB 2^20.
  function units(bytes) {
    return bytes >= 1000n ? ` (${inUnit(bytes, DECIMAL)}, ${inUnit(bytes, BINARY)})` : "";
  }

  // What a reader typed, as a size: digits, with commas, underscores or spaces between them allowed.
  function parse(text) {
    const digits = text.trim().replace(/[,_\s]/g, "");
    return /^[0-9]+$/.test(digits) ? BigInt(digits) : null;
  }

  function cell(row, text, className) {
    const td = row.insertCell();
    if (className) td.className = className;
    td.textContent = text;
    return td;
  }

  function setup(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "1";
    const family = window.DV_CALCULATORS[form.dataset.family];
    const preset = form.elements.preset;
    const cls = form.elements["class"];
    const inputs = family.sizes.map((name) => form.elements[name]);
    const result = form.querySelector(".dv-calc-result");
    const message = form.querySelector(".dv-calc-message");
    const table = form.querySelector(".dv-calc-table");
    const total = form.querySelector(".dv-calc-total");
    const totalMore = form.querySelector(".dv-calc-total-more");
    const active = form.querySelector(".dv-calc-active");
    const activeMore = form.querySelector(".dv-calc-active-more");
    const seq = form.elements.seq;
    const flops = form.querySelector(".dv-calc-flops");
    const flopsMore = form.querySelector(".dv-calc-flops-more");
    const dtype = form.elements.dtype;
    const cache = form.querySelector(".dv-calc-cache");
    const cacheMore = form.querySelector(".dv-calc-cache-more");
    const stated = {}; // each rule's words, as the form lists them
    for (const item of form.querySelectorAll(".dv-calc-rules [data-rule]")) stated[item.dataset.rule] = item;
    // A place for a message beside each field, which the field names as its description.
    const notes = {};
    for (const input of inputs) {
      const note = document.createElement("span");
      note.className = "dv-calc-error";
      note.id = `${form.id}-${input.name}-note`;
      note.hidden = true;
      input.after(note);
      notes[input.name] = note;
    }
    let edited = null; // the field typed into last: a rule between two sizes is shown beside it
    let shown = false; // whether a result is on the page (kept, marked stale, when the sizes go wrong)

    // The sizes the class uses, and what is wrong with them: {field: [words (nodes), refuses]}.
    function read() {
      const values = {};
      const problems = {};
      const used = new Set(family.uses[cls.value]);
      for (const input of inputs) {
        input.disabled = !used.has(input.name); // a size this class does not have
        if (input.disabled) continue;
        const least = BigInt(family.minimum[input.name]);
        // A switch (0 or 1) has a greatest value; a size, an int64's.
        const most = input.name in family.maximum ? BigInt(family.maximum[input.name]) : LARGEST;
        const n = parse(input.value);
        if (n !== null && n >= least && n <= most) values[input.name] = n;
        else problems[input.name] = [[`A whole number from ${least} to ${format(most)}.`], true];
      }
      if (Object.keys(problems).length) return [values, problems];
      for (const [size, derive] of family.derived) values[size] = derive(values);
      for (const [size] of family.derived) used.add(size); // a rule may concern a derived size (ModernBERT's d_h)
      family.rules.forEach(([field, sizes, holds, refuses], i) => {
        if (!sizes.every((size) => used.has(size)) || holds(values)) return;
        // A derived size has no field: its words go beside the size it is derived from that was typed into, else
        // beside the divisor (ModernBERT's odd head D / H, beside H).
        const from = family.derived.find(([size]) => size === field);
        const where = sizes.includes(edited) ? edited : !from ? field : from[2].includes(edited) ? edited : from[2][1];
        if (problems[where] && problems[where][1]) return; // one refusal at a time beside a field
        problems[where] = [[...stated[i].cloneNode(true).childNodes], refuses];
      });
      return [values, problems];
    }

    function mark(problems) {
      for (const input of inputs) {
        const note = notes[input.name];
        const problem = input.disabled ? undefined : problems[input.name];
        note.hidden = !problem;
        note.classList.toggle("dv-calc-note", Boolean(problem && !problem[1])); // a note, not an error
        note.replaceChildren(...(problem ? problem[0] : []));
        input.setAttribute("aria-invalid", String(Boolean(problem && problem[1])));
        if (problem) input.setAttribute("aria-describedby", note.id);
        else input.removeAttribute("aria-describedby");
      }
    }

    function show(values) {
      const width = BigInt(dtype.selectedOptions[0].dataset.bits) / 8n; // bytes an element takes
      for (const label of form.querySelectorAll(".dv-calc-dtype")) label.textContent = dtype.value;
      const copies = family.copies.map(([label, count]) => [label, count(values)]);
      const rows = family.classes[cls.value].map(([name, index, one, all]) =>
        [name, copies[index], one(values), all ? all(values) : one(values)]);
      let sum = 0n;
      for (const row of rows) sum += row[3];
      const body = document.createElement("tbody");
      for (const [name, [label, n], one, all] of rows) {
        const row = body.insertRow();
        const code = document.createElement("code");
        // A long dotted name may break after a dot, and only there.
        name.split(".").forEach((part, i) => code.append(...(i ? [".", document.createElement("wbr"), part] : [part])));
        row.insertCell().append(code);
        cell(row, format(one), "dv-calc-count");
        const times = cell(row, label ? `× ${format(n)} ` : "1", "dv-calc-count");
        if (label) {
          const of = document.createElement("span");
          of.className = "dv-calc-of";
          of.innerHTML = `(${label})`; // generated HTML: the sizes the copies are counted by (L, G L_g)
          times.append(of);
        }
        cell(row, format(all), "dv-calc-count dv-calc-all");
        cell(row, share(all, sum), "dv-calc-count");
        cell(row, format(all * width), "dv-calc-count");
      }
      const foot = document.createElement("tfoot");
      const row = foot.insertRow();
      row.append(Object.assign(document.createElement("th"), {textContent: "total"}));
      for (const text of ["", "", format(sum), "100.00%", format(sum * width)]) cell(row, text, "dv-calc-count");
      table.tBodies[0].replaceWith(body);
      if (table.tFoot) table.tFoot.replaceWith(foot);
      else table.append(foot);
      total.textContent = format(sum);
      totalMore.textContent = `, ${format(sum * width)} bytes in ${dtype.value}${units(sum * width)}`;
      if (active) {
        const n = family.active[cls.value](values);
        active.textContent = format(n);
        activeMore.textContent = ` (${share(n, sum)} of the total), ${format(n * width)} bytes in ${dtype.value}${units(n * width)}`;
      }
      // The forward over seq tokens (the generated function; an encoder-decoder's target as long as its source),
      // a token's share of it, and a training step: the forward and a backward of twice its FLOPs.
      const tokens = parse(seq.value);
      if (!family.forward[cls.value]) {  // an image whose size no config gives (Qwen2.5-VL's): no FLOPs here
        if (cache) cache.textContent = "";
        flops.textContent = "";
        flopsMore.textContent = " (not derived: this class reads images of sizes no config gives)";
      } else if (tokens !== null && tokens >= 1n && tokens <= LARGEST) {
        const forward = family.forward[cls.value]({...values, s: tokens});
        flops.textContent = format(forward);
        const exact = forward % tokens === 0n;
        // A model that reads images computes per image (seq is 1, and says so): no share a token.
        flopsMore.textContent = seq.dataset.unit === "image" ? `; a training step ${format(3n * forward)}`
          : `, ${exact ? "" : "about "}${format(forward / tokens)} a token; a training step ${format(3n * forward)}`;
        // The key/value cache after the same tokens (the generated function: every layer, full attention; a
        // cross-attention over a fixed window, Whisper's, that window), in the chosen data type.
        if (cache) {
          const elements = family.cache[cls.value] ? family.cache[cls.value]({...values, s: tokens}) : 0n;
          cache.textContent = format(elements * width);
          cacheMore.textContent = elements ? `${units(elements * width)} in ${dtype.value}: ${format(elements)} `
            + `elements (every layer attending to every token; a sliding window keeps less)` : " (this class keeps none)";
        }
      } else {
        if (cache) cache.textContent = "";
        flops.textContent = "";
        flopsMore.textContent = ` (a whole number of tokens from 1 to ${format(LARGEST)})`;
      }
      shown = true;
    }

    // Is the class with these sizes a checkpoint's? The one chosen first, then any.
    function checkpoint() {
      const used = new Set(family.uses[cls.value]);
      const same = (name) => inputs.every((input) => !used.has(input.name)
        || parse(input.value) === BigInt(family.presets[name][input.name]));
      if (preset.value && same(preset.value)) return preset.value;
      return Object.keys(family.presets).find(same) || "";
    }

    function update() {
      const [values, problems] = read();
      mark(problems);
      const refused = Object.values(problems).some(([, refuses]) => refuses);
      if (!refused) show(values);
      result.classList.toggle("dv-calc-stale", refused && shown);
      message.hidden = !refused;
      message.textContent = shown ? "Stale: these counts are for the last valid sizes. Fix the marked field."
        : "No count: fix the marked field.";
      preset.value = checkpoint(); // "custom sizes" when none
      return !refused;
    }

    // The address carries the class and the sizes (the other parameters it has are kept), so that a
    // result can be shared; replaced, not pushed: typing makes no history. Where the browser refuses
    // (some refuse it from disk), the page works the same without.
    function remember() {
      const url = new URL(window.location.href);
      const used = new Set(family.uses[cls.value]);
      url.searchParams.set("class", cls.value);
      if (parse(seq.value) !== null) url.searchParams.set("seq", String(parse(seq.value)));
      url.searchParams.set("dtype", dtype.value);
      for (const input of inputs) {
        if (used.has(input.name)) url.searchParams.set(input.name, String(parse(input.value)));
        else url.searchParams.delete(input.name);
      }
      url.hash = form.id;
      try {
        window.history.replaceState(window.history.state, "", url.href);
      } catch (error) { /* the address stays as it was */ }
    }

    // Sizes from the address: for this form when it names it (#calc-<family>), or when it is the page's
    // only calculator.
    function recall() {
      const params = new URL(window.location.href).searchParams;
      const mine = window.location.hash === `#${form.id}` || document.querySelectorAll("form.dv-calculator").length === 1;
      if (!mine) return;
      if ([...cls.options].some((o) => o.value === params.get("class"))) cls.value = params.get("class");
      for (const input of inputs) if (params.has(input.name)) input.value = params.get(input.name);
      if (params.has("seq")) seq.value = params.get("seq");
      if ([...dtype.options].some((o) => o.value === params.get("dtype"))) dtype.value = params.get("dtype");
    }

    form.addEventListener("submit", (event) => event.preventDefault());
    preset.addEventListener("change", () => {
      const values = family.presets[preset.value];
      for (const input of inputs) input.value = String(values[input.name]);
      edited = null;
      if (update()) remember();
    });
    cls.addEventListener("change", () => {
      if (update()) remember();
    });
    dtype.addEventListener("change", () => {
      if (update()) remember();
    });
    seq.addEventListener("input", () => {
      if (update()) remember();
    });
    for (const input of inputs) {
      input.addEventListener("input", () => {
        edited = input.name;
        if (update()) remember();
      });
    }
    recall();
    update();
  }

  function init() {
    const forms = document.querySelectorAll("form.dv-calculator");
    if (!forms.length) return;
    if (window.DV_CALCULATORS) {
      forms.forEach(setup); // setup() sets a form up once
      return;
    }
    // Reached by instant navigation from a page without a calculator: Material has put the page's script of
    // arithmetic back in, and tells of the page (document$) without waiting for it to run.
    const arithmetic = document.querySelector('script[src$="js/calculators.js"]');
    if (arithmetic) arithmetic.addEventListener("load", () => forms.forEach(setup), { once: true });
  }
  // Material's document$ gives each page that instant navigation loads; from disk (file://), where
  // instant navigation is off, it gives none, so the page that loads is set up on its own as well.
  if (window.document$) window.document$.subscribe(init);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

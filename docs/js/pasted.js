// The page for a config of one's own (config.html): a pasted or chosen config.json, counted by the package's
// own Python (derivations/pasted.py: the command line's readers, compiled derivations and its fit, flops and memory
// commands) run by Pyodide, both shipped with the site (hooks/pasted.py). Nothing is read or counted here: this script moves text
// between the form and Python, and shows what Python answers. Pyodide (about 13 MB) loads on the first
// count only. Runs on every page Material shows, instant navigation included; acts where the form is.
(function () {
  "use strict";
  // This script's address, read while it runs: the runtime and the bundle sit beside the site's js/ folder.
  const HERE = document.currentScript ? document.currentScript.src : location.href;
  const RUNTIME = new URL("../assets/pyodide/", HERE).href;
  const BUNDLE = new URL("../assets/derivations.zip", HERE).href;
  let python = null; // a promise of Pyodide with the bundle installed, made once per page load

  function start() {
    if (!python) {
      python = (async () => {
        const { loadPyodide } = await import(RUNTIME + "pyodide.mjs");
        const pyodide = await loadPyodide({ indexURL: RUNTIME });
        const response = await fetch(BUNDLE);
        if (!response.ok) throw new Error(`${BUNDLE}: ${response.status}`);
        pyodide.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: "/home/pyodide/bundle" });
        pyodide.runPython(
          "import sys; sys.path.insert(0, '/home/pyodide/bundle')\n" +
            "from derivations import pasted; pasted.install('/home/pyodide/bundle')"
        );
        const pasted = pyodide.globals.get("pasted");
        const formats = pasted.formats().toJs({ dict_converter: Object.fromEntries });
        return { pyodide, counter: pasted.count, command: pasted.command, folder: pasted.folder(), formats };
      })();
      python.catch(() => (python = null)); // a failed load may be tried again
    }
    return python;
  }

  function cell(tag, text, className) {
    const element = document.createElement(tag);
    element.textContent = text;
    if (className) element.className = className;
    return element;
  }

  function row(section, cells) {
    const tr = section.insertRow();
    cells.forEach(([text, className]) => tr.appendChild(cell("td", text, className)));
    return tr;
  }

  // Where a narrow screen may break a cell, its text unchanged: a dotted name after each dot (a <wbr>, which holds
  // no text), a size in bytes and its units before each " = " (each part whole; site.css says when they break).
  function breakable(name, number) {
    if (/^[^\s.]+(\.[^\s.]+)+$/.test(name.textContent)) {
      const parts = name.textContent.split(".");
      name.replaceChildren(parts[0]);
      for (const part of parts.slice(1)) name.append(".", document.createElement("wbr"), part);
    }
    if (number.textContent.includes(" = ")) {
      const parts = number.textContent.split(" = ");
      number.replaceChildren(cell("span", parts[0], "dv-paste-part"));
      for (const part of parts.slice(1)) number.append(" ", cell("span", `= ${part}`, "dv-paste-part"));
    }
  }

  // A table the command line prints, from its cells (derivations.answers.Table, as derivations/pasted.py answers
  // them): the title (the class) as its caption, the columns' heads, the body and the foot, each cell as printed.
  // The numbers are the last column; with ``formulas``, the body's middle column holds formulas (flops').
  function fill(table, cells, formulas) {
    table.replaceChildren();
    table.createCaption().textContent = cells.title;
    const head = table.createTHead().insertRow();
    cells.head.forEach((text, i) => head.appendChild(cell("th", text, i === 2 ? "dv-calc-count" : "")));
    const body = table.createTBody();
    const foot = table.createTFoot();
    for (const [section, rows] of [[body, cells.body], [foot, cells.foot]]) {
      for (const [name, middle, number] of rows) {
        const formula = formulas && section === body ? "dv-paste-formula" : "";
        const tr = row(section, [[name], [middle, formula], [number, "dv-calc-count"]]);
        breakable(tr.cells[0], tr.cells[2]);
      }
    }
  }

  function show(form, answer) {
    const message = form.querySelector(".dv-paste-message");
    const result = form.querySelector(".dv-paste-result");
    // FLOPs and memory were another config's, or another class's: computed again when asked; what fits, after
    // this count.
    for (const name of ["outputs", "compute-message", "fits-output", "fits-message"]) {
      form.querySelector(`.dv-paste-${name}`).hidden = true;
    }
    if (answer.error) {
      message.textContent = answer.error;
      if (answer.error.includes("not derived")) {
        // This page runs no torch: where the model_types it derives are listed, one click away.
        const list = document.createElement("a");
        list.href = "coverage.html";
        list.textContent = "What is derived, and what is not yet";
        message.append("\n", list);
      }
      message.hidden = false;
      result.hidden = true;
      return;
    }
    // The command line's lines on stderr beside its count (a field transformers would refuse): shown, not an error.
    const notes = answer.notes || [];
    message.hidden = !notes.length;
    message.textContent = notes.join("\n");
    form.querySelector(".dv-paste-architecture").textContent = answer.architecture;
    form.querySelector(".dv-paste-total").textContent = answer.total;
    const active = form.querySelector(".dv-paste-active");
    active.hidden = answer.active === null;
    active.querySelector("strong").textContent = answer.active || "";
    const table = form.querySelector("table");
    table.tBodies[0].replaceChildren();
    table.tFoot.replaceChildren();
    for (const r of answer.rows) {
      row(table.tBodies[0], [[r.name], [r.formula, "dv-paste-formula"], [r.count, "dv-calc-count"]]);
    }
    row(table.tFoot, [["total"], [""], [answer.total, "dv-calc-count"]]);
    if (answer.active !== null) {
      row(table.tFoot, [["active per token"], ["X_a of the X experts, the rest whole"], [answer.active, "dv-calc-count"]]);
    }
    form.querySelector(".dv-paste-table").textContent = answer.table;
    form.querySelector(".dv-paste-json").textContent = answer.json;
    // The classes this config can build: the command line's --arch.
    const select = form.querySelector("select[name=architecture]");
    select.replaceChildren(cell("option", "the config's (architectures[0], else the base model)"));
    select.options[0].value = "";
    for (const name of answer.architectures) select.appendChild(cell("option", name));
    select.value = form.dataset.architecture || "";
    result.hidden = false;
  }

  // The bytes of the file the reader chose, while the text shown is still that file's: Python reads them as
  // the command line reads a file (a file that is not UTF-8 gets the command's line, not replaced characters).
  const chosen = new WeakMap();

  // The config to read: the text shown, or (undefined, None in Python) the bytes of the file the reader chose,
  // written where Python reads them, while the text shown is still that file's.
  function source(form, { pyodide, folder }) {
    const text = form.querySelector("textarea").value;
    const file = chosen.get(form);
    if (file && file.text === text) {
      pyodide.FS.writeFile(`${folder}/config.json`, file.bytes);
      return undefined;
    }
    return text;
  }

  // The command line's fit on every accelerator of its table (the longest context at batch 1, the largest batch at
  // the config's context), for the class counted, shown as a table of the cells it prints under the command it
  // equals, with its lines on stderr; or, where it answers none (a class without an inference total), its line.
  function fits(form, loaded, text) {
    const message = form.querySelector(".dv-paste-fits-message");
    const output = form.querySelector(".dv-paste-fits-output");
    let shown = "";
    try {
      const architecture = form.dataset.architecture ? ["--arch", form.dataset.architecture] : [];
      const argv = ["fit", "config.json", ...architecture];
      const answer = JSON.parse(loaded.command(argv, text));
      if (answer.status === 0) {
        form.querySelector(".dv-paste-fits-command").textContent = `$ derivations ${argv.join(" ")}`;
        fill(form.querySelector(".dv-paste-fits-table"), answer.table, false);
      }
      shown = answer.status === 0 ? answer.notes.join("\n") : answer.output;
      output.hidden = answer.status !== 0;
    } catch (error) {
      shown = unexpected(error, "fit");
      output.hidden = true;
    }
    message.textContent = shown;
    message.hidden = !shown;
  }

  // The command line's memory, then its flops over the same tokens (memory's, where none are given: the
  // config's context), each shown as a table of the cells it prints, under the command it equals.
  async function compute(form) {
    const button = form.querySelector(".dv-paste-run");
    const message = form.querySelector(".dv-paste-compute-message");
    const outputs = form.querySelector(".dv-paste-outputs");
    button.disabled = true;
    try {
      const loaded = await start();
      const text = source(form, loaded);
      const value = (name) => form.querySelector(`[name=${name}]`).value.trim();
      const architecture = form.dataset.architecture ? ["--arch", form.dataset.architecture] : [];
      const seq = value("seq") ? ["--seq", value("seq")] : [];
      const batch = ["--batch", value("batch") || "1"];
      const options = [...seq, ...batch, "--dtype", value("dtype"), ...architecture];
      const run = (argv) => JSON.parse(loaded.command(argv, text));
      let answer = run(["memory", "config.json", ...options, "--json"]);
      let notes = []; // the command line's lines on stderr beside its answer (a length past the context, ...)
      if (answer.status === 0) {
        const tokens = String(JSON.parse(answer.output).seq);
        const memory = ["memory", "config.json", ...options];
        const flops = ["flops", "config.json", "--seq", tokens, ...batch, ...architecture];
        const shown = { memory: run(memory), flops: run(flops) };
        answer = [shown.memory, shown.flops].find((each) => each.status !== 0) || null;
        notes = shown.memory.notes || [];
        if (!answer) {
          for (const [name, argv] of [["memory", memory], ["flops", flops]]) {
            form.querySelector(`.dv-paste-${name}-command`).textContent = `$ derivations ${argv.join(" ")}`;
            fill(form.querySelector(`.dv-paste-${name}`), shown[name].table, name === "flops");
          }
        }
      }
      message.hidden = !answer && !notes.length;
      message.textContent = answer ? answer.output : notes.join("\n");
      outputs.hidden = Boolean(answer);
    } catch (error) {
      message.textContent = unexpected(error, "computation");
      message.hidden = false;
      outputs.hidden = true;
    } finally {
      button.disabled = false;
    }
  }

  // Something the command line would not print (a bug of ours), said in one line: the last of Python's traceback.
  function unexpected(error, what) {
    const lines = String(error.message).trim().split("\n");
    return `error: the ${what} failed (${lines[lines.length - 1]}); please report this config`;
  }

  async function count(form) {
    const status = form.querySelector(".dv-paste-status");
    const button = form.querySelector(".dv-paste-count");
    button.disabled = true;
    status.textContent = python ? "counting…" : "loading Python (about 13 MB, once)…";
    let loaded;
    try {
      loaded = await start();
    } catch (error) {
      status.textContent = location.protocol === "file:"
        ? "Opened from disk, the browser will not load Python (WebAssembly): serve the site (make serve) or use the command line."
        : `Python could not be loaded: ${error.message}`;
      button.disabled = false;
      return;
    }
    const { counter, formats } = loaded;
    const dtype = form.querySelector("select[name=dtype]");
    if (!dtype.options.length) {
      for (const name of formats.names) dtype.appendChild(cell("option", name));
      dtype.value = formats.default;
    }
    try {
      const text = source(form, loaded);
      const architecture = form.dataset.architecture; // none: the command line without --arch
      const answer = JSON.parse(architecture ? counter(text, architecture) : counter(text));
      show(form, answer);
      if (!answer.error) {
        status.textContent = "finding what fits…";
        await new Promise((resolve) => setTimeout(resolve)); // the count shown before fit runs
        fits(form, loaded, text);
      }
      status.textContent = "";
    } catch (error) {
      show(form, { error: unexpected(error, "count") }); // and no earlier count
      status.textContent = "";
    } finally {
      button.disabled = false;
    }
  }

  function setup(form) {
    if (form.dataset.ready) return;
    form.dataset.ready = "true";
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      form.dataset.architecture = "";
      count(form);
    });
    form.querySelector(".dv-paste-run").addEventListener("click", () => compute(form));
    form.querySelector("select[name=architecture]").addEventListener("change", (event) => {
      form.dataset.architecture = event.target.value;
      count(form);
    });
    form.querySelector("input[type=file]").addEventListener("change", async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      form.querySelector(".dv-paste-count").disabled = true; // busy from now: reading the file, then counting
      const bytes = new Uint8Array(await file.arrayBuffer());
      const text = new TextDecoder().decode(bytes); // shown; invalid UTF-8 as replacement characters
      form.querySelector("textarea").value = text;
      chosen.set(form, { bytes, text: form.querySelector("textarea").value });
      form.dataset.architecture = "";
      count(form);
    });
  }

  function init() {
    document.querySelectorAll("form.dv-paste").forEach(setup);
  }
  if (window.document$) window.document$.subscribe(init);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

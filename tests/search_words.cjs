// The words of a built search index that a search cannot reach, found by Material's own search worker
// run in node. A helper of tests/test_site.py: node search_words.cjs WORKER.js search_index.json
//
// lunr (2.3.9, inside the worker) keeps every indexed word in a minimized trie, which is what a search
// walks: it merges two nodes whose descriptions match, and describes a node by its edges' characters
// followed by the children's numeric ids, with nothing between them. With digits in words, two
// different nodes can read the same ("1" to node 234, and "1" to node 2 with "3" to node 4): the trie
// then holds words the index does not (a search that reaches one fails as a whole, "Invalid query") and
// loses words it does. Prints {"words": N, "phantom": [...], "lost": [...]}.
"use strict";
const fs = require("fs");
const [worker, indexFile] = process.argv.slice(2);

let listener;
globalThis.self = globalThis;  // the worker's global scope, as a web worker has it
globalThis.addEventListener = (type, fn) => { listener = fn; };
globalThis.postMessage = () => {};
(0, eval)(fs.readFileSync(worker, "utf8"));  // defines self.lunr and the message handler

let index;  // the lunr index the worker builds, caught at its first query
const query = lunr.Index.prototype.query;
lunr.Index.prototype.query = function (...args) { index = this; return query.apply(this, args); };

(async () => {
  const data = JSON.parse(fs.readFileSync(indexFile, "utf8"));
  await listener({ data: { type: 0, data: { ...data, options: { suggest: false } } } });  // SETUP
  await listener({ data: { type: 2, data: "transformer" } });  // QUERY
  const words = new Set(Object.keys(index.invertedIndex));
  const reached = new Set(index.tokenSet.toArray());
  console.log(JSON.stringify({
    words: words.size,
    phantom: [...reached].filter(word => !words.has(word)),
    lost: [...words].filter(word => !reached.has(word)),
  }));
})();

/* bordir view: the per-sample explorer (one self-contained page; no network unless served). */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("bordir-data").textContent);
  var META = DATA.meta;
  var KIND = META.kind;
  var N = BordirNumbers;
  var PAGE = 50;
  var body = document.body;

  // ---------------------------------------------------------------- helpers
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") e.textContent = v;
      else if (k === "html") e.innerHTML = v;
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    });
    (kids || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function pct(x, d) { return (x === null || x === undefined || isNaN(x)) ? "n/a" : (100 * x).toFixed(d === undefined ? 1 : d); }
  function fmt(x, d) { return (x === null || x === undefined || (typeof x === "number" && isNaN(x))) ? "–" : (typeof x === "number" ? (d === undefined ? String(x) : x.toFixed(d)) : String(x)); }

  // ---------------------------------------------------------------- state in the URL hash
  var FACETS = META.facets;
  var FACET_KEYS = FACETS.map(function (f) { return f.key; });
  var STATE_KEYS = ["tab", "q", "sort", "dir", "page", "metric", "expect", "open", "mt", "mm", "mm2", "cell"];
  function decode(v) {
    /* a malformed escape in a hand-made link (%E0%A4%A) is kept as it is, not the end of the page */
    try { return decodeURIComponent(v); } catch (e) { return v; }
  }
  function readHash(hash) {
    /* the state a URL fragment names (default: the page's own) */
    var s = { f: {} };
    var h = (hash === undefined ? location.hash : hash).replace(/^#/, "");
    h.split("&").forEach(function (part) {
      if (!part) return;
      var i = part.indexOf("="), k = decode(i < 0 ? part : part.slice(0, i)), v = i < 0 ? "" : part.slice(i + 1);
      if (FACET_KEYS.indexOf(k) >= 0) s.f[k] = v === "" ? [] : v.split(",").map(decode);
      else if (STATE_KEYS.indexOf(k) >= 0) s[k] = decode(v);
    });
    return s;
  }
  function writeHash(s) {
    var parts = [];
    STATE_KEYS.forEach(function (k) { if (s[k] !== undefined && s[k] !== null && s[k] !== "") parts.push(k + "=" + encodeURIComponent(s[k])); });
    FACET_KEYS.forEach(function (k) { if (s.f[k] && s.f[k].length) parts.push(k + "=" + s.f[k].map(encodeURIComponent).join(",")); });
    var h = "#" + parts.join("&");
    if (h !== location.hash) history.replaceState(null, "", h === "#" ? location.pathname + location.search : h);
  }
  var state = readHash();

  // ---------------------------------------------------------------- the local store (embedded rows)
  function Column(spec) {
    if (spec.d) { this.dict = spec.d; this.codes = Int32Array.from(spec.c); this.length = spec.c.length; }
    else { this.nums = spec.n; this.length = spec.n.length; }
  }
  Column.prototype.get = function (i) {
    if (this.dict) { var c = this.codes[i]; return c < 0 ? null : this.dict[c]; }
    return this.nums[i];
  };

  function LocalStore(rows) {
    var self = this;
    this.cols = {};
    Object.keys(rows.cols).forEach(function (k) { self.cols[k] = new Column(rows.cols[k]); });
    this.n = rows.n;
    this.facetValues = {};
    FACETS.forEach(function (f) {
      var c = self.cols[f.key];
      if (f.multi) {
        self.facetValues[f.key] = c.dict.map(function (v) { return v ? v.split(",") : ["(none)"]; });
      }
    });
    if (KIND === "run") {
      this.byTerritory = new Map();
      var tc = this.cols.territory;
      for (var i = 0; i < this.n; i++) {
        var t = tc.get(i);
        if (!this.byTerritory.has(t)) this.byTerritory.set(t, []);
        this.byTerritory.get(t).push(i);
      }
    }
    this._search = { q: null, match: null };
  }
  LocalStore.prototype.record = function (i) {
    var r = { id: i }, cols = this.cols;
    Object.keys(cols).forEach(function (k) { r[k] = cols[k].get(i); });
    return r;
  };
  LocalStore.prototype.searchMatch = function (q) {
    var col = this.cols[META.search];
    if (!q || !col) return null;
    if (this._search.q === q) return this._search.match;
    var needle = q.toLowerCase(), m = new Uint8Array(col.dict.length);
    col.dict.forEach(function (v, i) { m[i] = v && v.toLowerCase().indexOf(needle) >= 0 ? 1 : 0; });
    this._search = { q: q, match: m };
    return m;
  };
  LocalStore.prototype.filter = function (st) {
    /* indices passing every filter, and the facet counts with each facet's own filter left out */
    var self = this, active = [];
    FACETS.forEach(function (f) {
      var want = st.f[f.key];
      if (!want || !want.length) return;
      var c = self.cols[f.key], ok = new Uint8Array(c.dict.length), set = new Set(want);
      c.dict.forEach(function (v, i) {
        if (f.multi) ok[i] = self.facetValues[f.key][i].some(function (x) { return set.has(x); }) ? 1 : 0;
        else ok[i] = set.has(v === null ? "" : String(v)) ? 1 : 0;
      });
      active.push({ key: f.key, codes: c.codes, ok: ok });
    });
    var sm = this.searchMatch(st.q), sc = sm ? this.cols[META.search].codes : null;
    var counts = {};
    FACETS.forEach(function (f) { counts[f.key] = new Float64Array(self.cols[f.key].dict.length); });
    var out = [];
    for (var i = 0; i < this.n; i++) {
      var fails = 0, failed = null;
      if (sm && !sm[sc[i]]) fails = 2;
      for (var a = 0; a < active.length && fails < 2; a++) {
        if (!active[a].ok[active[a].codes[i]]) { fails++; failed = active[a].key; }
      }
      if (fails === 0) {
        out.push(i);
        for (var k = 0; k < FACETS.length; k++) { var fk = FACETS[k].key; counts[fk][this.cols[fk].codes[i]]++; }
      } else if (fails === 1) {
        counts[failed][this.cols[failed].codes[i]]++;
      }
    }
    var facets = {};
    FACETS.forEach(function (f) {
      var c = self.cols[f.key], acc = new Map();
      c.dict.forEach(function (v, code) {
        var names = f.multi ? self.facetValues[f.key][code] : [v === null ? "" : String(v)];
        names.forEach(function (nm) { acc.set(nm, (acc.get(nm) || 0) + counts[f.key][code]); });
      });
      facets[f.key] = sortValues(f.key, Array.from(acc.entries()));
    });
    return { idx: out, facets: facets };
  };
  LocalStore.prototype.query = function (st) {
    var res = this.filter(st), idx = res.idx, self = this;
    if (st.sort && this.cols[st.sort]) {
      var col = this.cols[st.sort], dir = st.dir === "desc" ? -1 : 1;
      idx = idx.slice().sort(function (a, b) {
        var x = col.get(a), y = col.get(b);
        if (st.sort === "run") { x = x === null ? null : +x; y = y === null ? null : +y; }
        if (x === y) return a - b;
        if (x === null) return 1; if (y === null) return -1;
        return (x < y ? -1 : 1) * dir;
      });
    }
    var page = Math.max(0, parseInt(st.page || "0", 10) || 0);
    var rows = idx.slice(page * PAGE, page * PAGE + PAGE).map(function (i) { return self.record(i); });
    return Promise.resolve({ total: idx.length, all: this.n, rows: rows, facets: res.facets, page: page,
                             numbers: computeNumbers(idx.map(function (i) { return self.numberRow(i); }), st) });
  };
  LocalStore.prototype.numberRow = function (i) {
    var c = this.cols, r = { id: i };
    if (KIND === "run") {
      r.territory = c.territory.get(i); r.lang = c.lang.get(i); r.control = c.role.get(i) === "control (en)";
      r.mode = c.mode.get(i); r.model = c.model.get(i); r.run = parseInt(c.run.get(i), 10);
      r.order = c.order.get(i); r.outcome = c.outcome.get(i); r.choice = c.choice.get(i);
      if (c.cites) { var ci = c.cites.get(i), inc = c.incl.get(i); r.cites = ci ? JSON.parse(ci) : {}; r.incl = inc ? JSON.parse(inc) : null; }
    } else {
      (META.number_columns || []).forEach(function (k) { r[k] = c[k].get(i); });
    }
    return r;
  };
  LocalStore.prototype.sample = function (id) { return Promise.resolve(this.record(id)); };
  LocalStore.prototype.cellRows = function (territory) {
    var self = this;
    return Promise.resolve((this.byTerritory.get(territory) || []).map(function (i) { return self.record(i); }));
  };

  // ---------------------------------------------------------------- the remote store (bordir view --serve)
  function RemoteStore() {}
  function api(path, params) {
    var q = Object.keys(params).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
    return fetch(path + "?" + q).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(t); });
      return r.json();
    });
  }
  function stateParams(st) {
    var p = {};
    ["q", "sort", "dir", "page", "metric"].forEach(function (k) { if (st[k]) p[k] = st[k]; });
    FACET_KEYS.forEach(function (k) { if (st.f[k] && st.f[k].length) p[k] = st.f[k].join("\u001f"); });
    return p;
  }
  RemoteStore.prototype.query = function (st) {
    return api("api/query", stateParams(st)).then(function (res) {
      Object.keys(res.facets).forEach(function (k) { res.facets[k] = sortValues(k, res.facets[k]); });
      return res;
    });
  };
  RemoteStore.prototype.numbers = function (st) { return api("api/numbers", stateParams(st)); };
  RemoteStore.prototype.sample = function (id) { return api("api/sample", { id: id }); };
  RemoteStore.prototype.cellRows = function (territory) { return api("api/territory", { t: territory }).then(function (r) { return r.rows; }); };

  var store = DATA.rows ? new LocalStore(DATA.rows) : new RemoteStore();

  function sortValues(key, entries) {
    if (key === "run") return entries.sort(function (a, b) { return (+a[0]) - (+b[0]); });
    var order = key === "mode" ? META.modes : key === "model" ? META.models : null;
    if (order) return entries.sort(function (a, b) { return order.indexOf(a[0]) - order.indexOf(b[0]); });
    return entries.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; });
  }

  // ---------------------------------------------------------------- numbers of the rows on screen
  var TERR = META.territories || {};
  var TORDER = Object.keys(TERR);
  function computeNumbers(rows, st) {
    if (KIND === "run") return runNumbers(rows, st.metric);
    if (KIND === "testbed") return sumNumbers(rows, st.metric);
    return { n: rows.length, groups: [], metric: null };
  }
  function runNumbers(rows, metric) {
    var given = rows.filter(function (r) { return r.order === "given"; });
    var out = { n: rows.length, n_given: given.length, groups: [], metric: null };
    var groups = N.groupBy(given, function (r) { return r.model + "\u0001" + r.mode; });
    var keys = Array.from(groups.keys()).sort(function (a, b) {
      var A = a.split("\u0001"), B = b.split("\u0001");
      return (META.models.indexOf(A[0]) - META.models.indexOf(B[0])) || (META.modes.indexOf(A[1]) - META.modes.indexOf(B[1]));
    });
    keys.slice(0, 24).forEach(function (k) {
      var p = k.split("\u0001");
      out.groups.push({ model: p[0], mode: p[1], cell: N.csCell(groups.get(k), TERR, META.policy, TORDER, p[1]) });
    });
    out.more = Math.max(0, keys.length - 24);
    if (!metric) return out;
    var m = metric.split(":");
    try {
      if (m[0] === "cs") {
        var g = out.groups.length === 1 ? out.groups[0] : null;
        out.metric = g ? { value: g.cell.metrics[m[1]].mean, runs: g.cell.runs, per_run: g.cell.metrics[m[1]].per_run,
                           n_territories: g.cell.n_territories, n_rows: g.cell.n_rows }
                       : { value: NaN, n_groups: out.groups.length };
      } else if ((m[0] === "cmp" || m[0] === "pl") && new Set(given.map(function (r) { return r.model; })).size !== 1) {
        out.metric = { value: NaN, n_models: new Set(given.map(function (r) { return r.model; })).size };
      } else if (m[0] === "cmp") {
        out.metric = N.comparison(given.filter(function (r) { return r.mode === m[2]; }), given.filter(function (r) { return r.mode === m[3]; }),
                                  m[1], TERR, META.policy, TORDER);
        out.metric.value = out.metric.diff;
      } else if (m[0] === "pl") {
        out.metric = N.perlangComparison(given.filter(function (r) { return r.mode === m[2]; }), given.filter(function (r) { return r.mode === m[3]; }),
                                         m[1], m[4], TERR, META.policy);
        out.metric.value = out.metric.diff;
      } else if (m[0] === "cit") {
        out.metric = N.citationRates(rows, m[1]);
        out.metric.value = m[2] === "ratio" ? out.metric.ratio : out.metric.citation_rate;
      } else {
        out.metric = { value: NaN, error: "unknown metric " + metric };
      }
    } catch (err) { out.metric = { value: NaN, error: err.message }; }
    out.metric.spec = metric;
    return out;
  }
  function describeMetric(x) {
    /* the label and the detail line of a recomputed number (the same for the static and the served page) */
    var m = x.spec.split(":");
    if (x.error) return { label: x.spec, detail: "cannot compute: " + x.error };
    if (x.n_models !== undefined) return { label: x.spec, detail: "a comparison needs the rows of exactly one model (" + x.n_models + " on screen)" };
    if (m[0] === "cs") return { label: N.LABELS[m[1]] || m[1], detail: x.runs
      ? "mean over runs " + x.runs.join(", ") + ": " + x.per_run.map(function (v) { return pct(v === null ? NaN : v); }).join(", ") + "; " + x.n_territories + " territories, " + x.n_rows + " rows"
      : "needs the rows of exactly one model and mode (" + x.n_groups + " on screen)" };
    if (m[0] === "cmp") return { label: (N.LABELS[m[1]] || m[1]) + ": " + m[2] + " − " + m[3],
      detail: m[2] + " " + pct(x.value_a) + ", " + m[3] + " " + pct(x.value_b) + " on " + x.n_territories + " common territories (runs pooled per territory)" };
    if (m[0] === "pl") return { label: m[1] + " in " + m[4] + ": " + m[2] + " − " + m[3],
      detail: m[2] + " " + pct(x.value_a) + ", " + m[3] + " " + pct(x.value_b) + " on " + x.n_territories + " paired territories (runs pooled per territory)" };
    if (m[0] === "cit") return { label: (m[2] === "ratio" ? "citation / inclusion ratio" : "citation rate") + " of " + m[1] + " documents", raw: m[2] === "ratio",
      detail: "citations " + pct(x.citation_rate) + ", inclusion (answers citing) " + pct(x.inclusion_rate_citing) + "; " + x.n_answers + " answers, " + x.n_citing + " citing" };
    return { label: x.label || x.spec, detail: x.detail || "", raw: x.raw };
  }
  function sumNumbers(rows, metric) {
    var out = { n: rows.length, groups: [], metric: null };
    (META.numbers || []).forEach(function (spec) {
      var s = N.sums(rows, "num:" + spec.key, "den:" + spec.key);
      out.groups.push({ key: spec.key, label: spec.label, value: s.value, count: s.count, n: s.n });
      if (metric === "tb:" + spec.key) out.metric = { spec: metric, label: spec.label, value: s.value, detail: s.count + "/" + s.n + " items on screen" };
    });
    return out;
  }

  // ---------------------------------------------------------------- page skeleton
  var tabs = KIND === "run" ? [["matrix", "Territory matrix"], ["samples", "Samples"]] : [["samples", META.rows_label || "Items"]];
  function showTab(name) {
    tabs.forEach(function (t) {
      $("tab-" + t[0]).setAttribute("aria-selected", t[0] === name ? "true" : "false");
      $("sec-" + t[0]).hidden = t[0] !== name;
    });
    state.tab = name;
    writeHash(state);
  }
  function setupTabs() {
    var nav = $("tabs");
    tabs.forEach(function (t, i) {
      nav.appendChild(el("button", { id: "tab-" + t[0], role: "tab", "aria-controls": "sec-" + t[0], type: "button",
        text: t[1], onclick: function () { showTab(t[0]); if (t[0] === "samples") refresh(); } }));
    });
    nav.addEventListener("keydown", function (ev) {
      if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
      var cur = tabs.findIndex(function (t) { return t[0] === state.tab; });
      var next = tabs[(cur + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length][0];
      showTab(next); $("tab-" + next).focus(); if (next === "samples") refresh();
    });
  }

  // ---------------------------------------------------------------- the territory matrix
  var PALETTE = 6;
  function claimantClass(T, answer) {
    var i = T.claimants.indexOf(answer);
    return i < 0 ? "cx" : "c" + (i % PALETTE);
  }
  function langRows(T, rows) {
    var present = new Set(rows.map(function (r) { return r.lang; }));
    var out = [];
    T.claimant_langs.forEach(function (l) { if (l && present.has(l) && out.indexOf(l) < 0) out.push(l); });
    if (present.has("en") && out.indexOf("en") < 0) out.push("en");
    Array.from(present).sort().forEach(function (l) { if (out.indexOf(l) < 0) out.push(l); });
    return out;
  }
  function summarize(rows) {
    var counts = new Map();
    rows.forEach(function (r) { counts.set(r.answer, (counts.get(r.answer) || 0) + 1); });
    var best = null, k = 0;
    counts.forEach(function (n, a) { if (n > k) { best = a; k = n; } });
    return { answer: best, k: k, n: rows.length, counts: counts };
  }
  function setupMatrix() {
    var terrs = TORDER;
    var ctl = $("matrix-controls");
    var tsel = el("select", { id: "m-territory" }), msel = el("select", { id: "m-model" }), dsel = el("select", { id: "m-model2" });
    terrs.forEach(function (t) { tsel.appendChild(el("option", { value: t, text: t })); });
    META.models.forEach(function (m) { msel.appendChild(el("option", { value: m, text: m })); });
    dsel.appendChild(el("option", { value: "", text: "— none —" }));
    META.models.forEach(function (m) { dsel.appendChild(el("option", { value: m, text: m })); });
    ctl.appendChild(el("label", { "for": "m-territory" }, ["Territory", tsel]));
    ctl.appendChild(el("label", { "for": "m-model" }, ["Model", msel]));
    ctl.appendChild(el("label", { "for": "m-model2" }, ["Diff against model", dsel]));
    tsel.value = terrs.indexOf(state.mt) >= 0 ? state.mt : terrs[0];
    msel.value = META.models.indexOf(state.mm) >= 0 ? state.mm : META.models[0];
    dsel.value = META.models.indexOf(state.mm2) >= 0 ? state.mm2 : "";
    [tsel, msel, dsel].forEach(function (s) { s.addEventListener("change", function () {
      state.mt = tsel.value; state.mm = msel.value; state.mm2 = dsel.value; state.cell = ""; writeHash(state); renderMatrix();
    }); });
  }
  function renderMatrix() {
    var t = $("m-territory").value, model = $("m-model").value, model2 = $("m-model2").value;
    state.mt = t; state.mm = model; state.mm2 = model2;
    var T = TERR[t];
    return store.cellRows(t).then(function (rows) {
      var legend = $("matrix-legend");
      legend.textContent = "";
      T.claimants.forEach(function (c, i) {
        legend.appendChild(el("span", null, [el("span", { "class": "sw c" + (i % PALETTE), "aria-hidden": "true" }),
          (c === T.controller ? "★ " : "") + c + " (" + (T.claimant_langs[i] || "?") + ")" + (c === T.controller ? ", controller" : "")]));
      });
      legend.appendChild(el("span", null, [el("span", { "class": "sw cx", "aria-hidden": "true" }), "unparsed / refused / multiple / failed"]));
      if (!T.known) legend.appendChild(el("span", { text: "controller: Unknown" }));
      var mine = rows.filter(function (r) { return r.model === model; });
      var other = model2 ? rows.filter(function (r) { return r.model === model2; }) : [];
      var langs = langRows(T, rows);
      var tbl = el("table", { "class": "matrix", id: "matrix", role: "grid", "aria-label": "Answers for " + t + " by query language and mode" });
      var head = el("tr", null, [el("th", { scope: "col", text: "query lang \\ mode" })]);
      META.modes.forEach(function (m) { head.appendChild(el("th", { scope: "col", text: m })); });
      tbl.appendChild(el("thead", null, [head]));
      var tb = el("tbody");
      langs.forEach(function (lang, ri) {
        var role = T.claimant_langs.indexOf(lang) >= 0 ? "claimant: " + T.claimants.filter(function (c, i) { return T.claimant_langs[i] === lang; }).join(", ")
                 : lang === "en" ? "English control" : "other";
        var tr = el("tr", null, [el("th", { scope: "row", "class": "lang" }, [lang, el("small", { text: role })])]);
        META.modes.forEach(function (mode, ci) {
          var cellRows = mine.filter(function (r) { return r.lang === lang && r.mode === mode; });
          var td = el("td", { role: "gridcell" });
          if (!cellRows.length) { td.className = "empty"; td.appendChild(el("span", { text: "—", title: "no sample" })); tr.appendChild(td); return; }
          var s = summarize(cellRows);
          var isOutcome = T.claimants.indexOf(s.answer) < 0;
          td.className = claimantClass(T, s.answer);
          var label = [el("span", { "class": "ans" }, [s.answer === T.controller ? el("span", { "class": "star", title: "the controller", text: "★ " }) : null,
                        isOutcome ? el("span", { "class": "outcome", text: s.answer }) : s.answer]),
                       el("span", { "class": "agree", text: s.k + " of " + s.n + (s.k === s.n ? " agree" : " agree") })];
          var aria = lang + ", " + mode + ": " + s.answer + (s.answer === T.controller ? " (controller)" : "") + ", " + s.k + " of " + s.n + " runs and orders";
          if (model2) {
            var o = other.filter(function (r) { return r.lang === lang && r.mode === mode; });
            if (o.length) {
              var s2 = summarize(o);
              if (s2.answer !== s.answer) {
                td.className += " changed";
                label.push(el("span", { "class": "diff", text: "≠ " + model2 + ": " + s2.answer + " " + s2.k + "/" + s2.n }));
                aria += "; changed: " + model2 + " answers " + s2.answer;
              }
            }
          }
          var title = Array.from(s.counts.entries()).map(function (e) { return e[0] + ": " + e[1]; }).join("\n");
          var key = lang + "|" + mode;
          if (state.cell === key) td.className += " selected";
          var btn = el("button", { type: "button", "class": "cell", "data-lang": lang, "data-mode": mode, "data-row": ri, "data-col": ci,
                                   "aria-label": aria, title: title, onclick: function () { openCell(t, model, lang, mode); } }, label);
          td.appendChild(btn);
          tr.appendChild(td);
        });
        tb.appendChild(tr);
      });
      tbl.appendChild(tb);
      tbl.addEventListener("keydown", gridKeys);
      var box = $("matrix-box");
      box.textContent = "";
      box.appendChild(tbl);
      if (!body.dataset.matrixMs) body.dataset.matrixMs = String(Math.round(performance.now()));
      body.dataset.matrixReady = "1";
      body.dataset.matrixCells = String(tbl.querySelectorAll("button.cell").length);
      writeHash(state);
    });
  }
  function gridKeys(ev) {
    var b = ev.target.closest && ev.target.closest("button.cell");
    if (!b) return;
    var d = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowDown: [1, 0], ArrowUp: [-1, 0] }[ev.key];
    if (!d) return;
    ev.preventDefault();
    var r = +b.dataset.row, c = +b.dataset.col, tbl = $("matrix");
    for (var step = 1; step < 50; step++) {
      var nb = tbl.querySelector('button.cell[data-row="' + (r + d[0] * step) + '"][data-col="' + (c + d[1] * step) + '"]');
      if (nb) { nb.focus(); return; }
    }
  }
  function openCell(territory, model, lang, mode) {
    state.cell = lang + "|" + mode; state.open = ""; writeHash(state);
    Array.prototype.forEach.call(document.querySelectorAll("td.selected"), function (td) { td.classList.remove("selected"); });
    var b = document.querySelector('button.cell[data-lang="' + CSS.escape(lang) + '"][data-mode="' + CSS.escape(mode) + '"]');
    if (b) b.parentNode.classList.add("selected");
    store.cellRows(territory).then(function (rows) {
      var mine = rows.filter(function (r) { return r.model === model && r.lang === lang && r.mode === mode; });
      return Promise.all(mine.map(function (r) { return store.sample(r.id); }));
    }).then(function (recs) {
      var head = [el("p", null, [recs.length + " sample(s): " + territory + ", query language " + lang + ", mode " + mode + ", " + model + " (every run and option order). ",
        el("button", { type: "button", id: "cell-to-table", text: "Show them in the sample table", onclick: function () {
          state.f = { territory: [territory], lang: [lang], mode: [mode], model: [model] }; state.page = "0"; state.metric = ""; state.expect = "";
          closePanel(); syncFacetInputs(); showTab("samples"); refresh();
        } })])];
      openPanel("Samples behind " + lang + " × " + mode, head.concat(recs.map(renderSample)));
    });
  }

  // ---------------------------------------------------------------- the sample panel
  var lastFocus = null;
  function openPanel(title, nodes) {
    var p = $("panel");
    lastFocus = document.activeElement;
    p.textContent = "";
    p.appendChild(el("button", { type: "button", "class": "close", id: "panel-close", text: "Close (Esc)", onclick: closePanel }));
    p.appendChild(el("h2", { id: "panel-title", text: title }));
    nodes.forEach(function (n) { p.appendChild(n); });
    p.hidden = false;
    body.classList.add("panel-open");
    $("panel-close").focus();
    body.dataset.panelReady = "1";
  }
  function closePanel() {
    $("panel").hidden = true;
    body.classList.remove("panel-open");
    state.open = ""; state.cell = ""; writeHash(state);
    body.dataset.panelReady = "0";
    if (lastFocus && lastFocus.focus) lastFocus.focus();
  }
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && !$("panel").hidden) closePanel(); });

  function dl(pairs) {
    var d = el("dl");
    pairs.forEach(function (p) { if (p[1] === undefined) return; d.appendChild(el("dt", { text: p[0] })); d.appendChild(el("dd", null, [p[1] instanceof Node ? p[1] : String(p[1] === null ? "–" : p[1])])); });
    return d;
  }
  function renderSample(r) {
    if (KIND === "run") return renderRunSample(r);
    if (KIND === "testbed") return renderTestbedItem(r);
    if (KIND === "testgen") return renderTestgenItem(r);
    if (KIND === "blackbox") return renderBlackboxCell(r);
    return renderAuditCell(r);
  }
  function renderRunSample(r) {
    var T = TERR[r.territory];
    var box = el("article", { "class": "sample", "data-id": r.id, "aria-label": "sample " + r.id });
    box.appendChild(el("h3", { text: "#" + r.id + " · " + r.query_id + " · " + r.mode + " · " + r.model + " · run " + r.run + " (seed " + fmt(r.seed) + ") · order " + r.order }));
    var prompt = [];
    try { prompt = r.prompt ? JSON.parse(r.prompt) : []; } catch (e) { prompt = [["?", r.prompt]]; }
    box.appendChild(el("h4", { text: "Prompt as sent" }));
    if (!prompt.length) box.appendChild(el("p", { "class": "muted", text: "(no prompt recorded)" }));
    prompt.forEach(function (m) { box.appendChild(el("div", null, [el("strong", { text: m[0] }), el("pre", { "class": "prompt-" + m[0], text: m[1] })])); });
    var docs = r.docs ? JSON.parse(r.docs) : [], cited = r.cited_pos ? JSON.parse(r.cited_pos) : [];
    box.appendChild(el("h4", { text: "Documents (" + docs.length + ")" + (cited.length ? ", " + cited.length + " cited" : "") }));
    if (docs.length) {
      var t = el("table", { "class": "data docs" });
      t.appendChild(el("thead", null, [el("tr", null, ["#", "cited", "doc id", "lang", "title", "revision", "rank", "score", "raw score"].map(function (h) { return el("th", { scope: "col", text: h }); }))]));
      var tb = el("tbody");
      docs.forEach(function (d, i) {
        var c = cited.indexOf(i) >= 0;
        tb.appendChild(el("tr", { "class": c ? "cited" : null }, [String(i), c ? "✓ cited" : "", d[0], d[1], d[2] || "–", d[3] || "–", fmt(d[5]), fmt(d[6], 4), fmt(d[7], 3)].map(function (x) { return el("td", { text: x }); })));
      });
      t.appendChild(tb); box.appendChild(t);
    }
    box.appendChild(el("h4", { text: "Reply" }));
    box.appendChild(el("pre", { "class": "reply", text: r.reply || (r.outcome === "failed" ? "(no reply: the call failed)" : "(empty)") }));
    var ans = r.outcome === "answered" ? r.answer + (r.answer === T.controller ? " ★ (the controller)" : "") : r.outcome;
    box.appendChild(dl([
      ["answer", ans],
      ["parser", el("span", { "class": r.rule_ok ? "" : "bad" }, [r.rule + (r.rule_ok ? "" : " — re-parsing does not give the recorded answer")])],
      ["option order", r.order + (r.pos >= 0 ? " (chosen at position " + String.fromCharCode(65 + r.pos) + ")" : "")],
      ["option scores", r.logprobs || undefined],
      ["agrees with controller", r.agree],
      ["cache key", el("span", null, [el("code", { text: r.key || "–" }), " ", el("span", { "class": r.key ? "muted" : "bad", text: r.keystat || "" })])],
      ["tokens in / out", fmt(r.in_tok) + " / " + fmt(r.out_tok)],
      ["cost (USD)", (r.cost === null || r.cost === undefined ? "–" : r.cost.toFixed(6)) + (r.cached ? " (served from the cache: not billed in this run)" : "")],
      ["latency", r.latency === null ? "–" : fmt(r.latency, 3) + " s"],
      ["error", r.error || undefined],
      ["signature", el("span", { "class": "sig", text: r.sig || "–" })]
    ]));
    return box;
  }
  function pre(text, cls) { return el("pre", { "class": cls || null, text: text === null || text === undefined ? "–" : String(text) }); }
  function renderTestbedItem(r) {
    var box = el("article", { "class": "sample", "data-id": r.id });
    box.appendChild(el("h3", { text: "#" + r.id + " · " + r.instance_id + " · " + r.model }));
    box.appendChild(el("h4", { text: "Question" })); box.appendChild(pre(r.query));
    var docs = r.docs ? JSON.parse(r.docs) : [];
    box.appendChild(el("h4", { text: "Documents (" + docs.length + ")" }));
    docs.forEach(function (d, i) { box.appendChild(el("div", null, [el("strong", { text: i + " · " + (d[0] || "") + " · " + (d[1] || "") + " · " + (d[2] || "") }), pre(d[3])])); });
    box.appendChild(el("h4", { text: "Prediction" })); box.appendChild(pre(r.prediction, "reply"));
    box.appendChild(dl([
      ["expected answer", r.answers], ["setting, noise rate", r.setting + ", " + r.noise],
      ["labels (rgb)", r.rgb_labels + " → " + r.rgb_outcome], ["labels (bordir)", r.bordir_labels + " → " + r.bordir_outcome],
      ["judge", r.judge || undefined],
      ["request key", el("span", null, [el("code", { text: r.key || "–" }), " ", el("span", { "class": r.key_ok === 1 ? "ok" : "bad", text: r.keystat || "" })])],
      ["tokens in / out", fmt(r.in_tok) + " / " + fmt(r.out_tok)], ["error", r.error || undefined]
    ]));
    return box;
  }
  function renderTestgenItem(r) {
    var box = el("article", { "class": "sample", "data-id": r.id });
    box.appendChild(el("h3", { text: r.test_id + " · " + r.config }));
    box.appendChild(el("h4", { text: "Question" })); box.appendChild(pre(r.question));
    box.appendChild(el("h4", { text: "Source chunk " + (r.chunk_id || "") })); box.appendChild(pre(r.chunk));
    box.appendChild(el("h4", { text: "Expected answer" })); box.appendChild(pre(r.expected));
    box.appendChild(el("h4", { text: "Answer" })); box.appendChild(pre(r.answer, "reply"));
    var js = r.judgments ? JSON.parse(r.judgments) : [];
    box.appendChild(el("h4", { text: "Judge verdicts (" + js.length + ")" + (r.disagree === "yes" ? " — repeats disagree" : "") }));
    if (js.length) {
      var crit = META.criteria;
      var t = el("table", { "class": "data verdicts" });
      t.appendChild(el("thead", null, [el("tr", null, ["judge", "repeat"].concat(crit).concat(["verdict", "outcome", "rationale"]).map(function (h) { return el("th", { scope: "col", text: h }); }))]));
      var tb = el("tbody");
      js.forEach(function (j) { tb.appendChild(el("tr", null, [j.judge, String(j.repeat)].concat(crit.map(function (c) { return fmt(j[c]); })).concat([fmt(j.verdict), j.outcome || "", j.rationale || j.note || ""]).map(function (x) { return el("td", { text: x }); }))); });
      t.appendChild(tb); box.appendChild(t);
    }
    box.appendChild(dl([["retrieved", r.retrieved], ["source retrieved", r.source_retrieved], ["strategy, negative", r.strategy + ", " + r.negative], ["keywords", r.keywords]]));
    return box;
  }
  function renderAuditCell(r) {
    var box = el("article", { "class": "sample", "data-id": r.id });
    box.appendChild(el("h3", { text: "cell " + r.group + " · query " + r.query_lang + " · documents " + r.doc_lang + " · " + r.rate }));
    box.appendChild(dl([["flag", r.verdict], ["citation rate", pct(r.citation_rate)], ["inclusion rate (citing)", pct(r.inclusion_rate_citing)],
                        ["ratio [95% CI]", fmt(r.ratio, 3) + " [" + fmt(r.ratio_low, 3) + ", " + fmt(r.ratio_high, 3) + "]"], ["p (adjusted)", fmt(r.p_adjusted, 4)],
                        ["answers, clusters", r.n_answers + ", " + r.n_clusters]]));
    var recs = r.records ? JSON.parse(r.records) : [];
    box.appendChild(el("h4", { text: "Records behind the cell (" + recs.length + (r.n_records > recs.length ? " of " + r.n_records : "") + ")" }));
    if (!recs.length) box.appendChild(el("p", { "class": "muted", text: r.records_note || "" }));
    var byLang = {};
    recs.forEach(function (x) { (x.cited_langs || []).forEach(function (l) { byLang[l] = (byLang[l] || 0) + 1; }); });
    if (recs.length) box.appendChild(el("p", { text: "Citations by language in these records: " + Object.keys(byLang).sort().map(function (l) { return l + " " + byLang[l]; }).join(", ") }));
    recs.slice(0, 200).forEach(function (x) {
      box.appendChild(el("div", { "class": "record" }, [el("strong", { text: x.id + " (" + x.query_lang + ")" }), pre(x.query),
        dl([["documents", (x.docs || []).map(function (d) { return d[0] + " [" + d[1] + "]"; }).join(", ")], ["cited", (x.citations || []).join(", ") || "none"],
            ["cited languages", (x.cited_langs || []).join(", ") || "none"]]), pre(x.response, "reply")]));
    });
    return box;
  }

  function renderBlackboxCell(r) {
    /* every answer behind a share cell, its URLs with their attribution and the rule that decided (all text as text) */
    var box = el("article", { "class": "sample", "data-id": r.id });
    box.appendChild(el("h3", { text: r.model + " · asked in " + r.query_lang + " · " + r.dimension + " = " + r.category }));
    var ci = (r.low === null || r.low === undefined) ? "too few to judge" : "[" + pct(r.low) + ", " + pct(r.high) + "]";
    box.appendChild(dl([["share", pct(r.share) + " % " + ci], ["URLs in the category / all", r.count + " / " + r.n_urls],
                        ["answers, clusters", r.n_answers + ", " + r.n_clusters], ["status", r.status]]));
    var refs = r.records ? JSON.parse(r.records) : [];
    box.appendChild(el("h4", { text: "Answers behind the cell (" + refs.length + (r.n_records > refs.length ? " of " + r.n_records + "; every one is in citations.parquet" : "") + ")" }));
    refs.forEach(function (ref) {
      var a = META.answers[ref[0]], inCell = new Set(ref[1]);
      var t = el("table", { "class": "data docs" });
      t.appendChild(el("thead", null, [el("tr", null, ["in cell", "URL", "domain", "country", "rule", "language", "rule", "lists", "title", "snippet"].map(function (h) { return el("th", { scope: "col", text: h }); }))]));
      var tb = el("tbody");
      (a.urls || []).forEach(function (u, j) {
        var hit = inCell.has(j);
        tb.appendChild(el("tr", { "class": hit ? "cited" : null }, [hit ? "✓" : "", u.url, u.domain, u.country, u.rule, u.lang, u.lang_rule, (u.lists || []).join(", "), u.title, u.snippet].map(function (x) { return el("td", { text: x === null || x === undefined ? "–" : String(x) }); })));
      });
      t.appendChild(tb);
      box.appendChild(el("div", { "class": "record" }, [el("strong", { text: a.id + " (line " + a.line + ", " + a.query_lang + (a.group ? ", group " + a.group : "") + ")" }), pre(a.question),
        pre(a.answer, "reply"), a.n_dup ? el("p", { "class": "muted", text: a.n_dup + " repeated URL(s) counted once" }) : null, t]));
    });
    return box;
  }

  // ---------------------------------------------------------------- the sample table
  function setupSamples() {
    var aside = $("facets");
    FACETS.forEach(function (f) {
      aside.appendChild(el("fieldset", { id: "facet-" + f.key }, [el("legend", { text: f.label })]));
    });
    var q = $("search");
    q.value = state.q || "";
    var timer = null;
    q.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { state.q = q.value; state.page = "0"; refresh(); }, 150); });
    $("clear").addEventListener("click", function () { state.f = {}; state.q = ""; state.metric = ""; state.expect = ""; state.page = "0"; q.value = ""; refresh(); });
    $("prev").addEventListener("click", function () { state.page = String(Math.max(0, (+state.page || 0) - 1)); refresh(); });
    $("next").addEventListener("click", function () { state.page = String((+state.page || 0) + 1); refresh(); });
  }
  function syncFacetInputs() { $("search").value = state.q || ""; }
  function renderFacets(facets) {
    FACETS.forEach(function (f) {
      var fs = $("facet-" + f.key);
      while (fs.childNodes.length > 1) fs.removeChild(fs.lastChild);
      var want = new Set(state.f[f.key] || []);
      (facets[f.key] || []).forEach(function (e, i) {
        var v = e[0], n = e[1], id = "f-" + f.key + "-" + i;
        var cb = el("input", { type: "checkbox", id: id, value: v, checked: want.has(v) ? true : null,
          onchange: function () {
            var cur = new Set(state.f[f.key] || []);
            if (this.checked) cur.add(v); else cur.delete(v);
            state.f[f.key] = Array.from(cur); state.page = "0"; refresh();
          } });
        fs.appendChild(el("label", { "for": id, "class": n ? null : "zero" }, [cb, v === "" ? "(none)" : v, el("span", { "class": "n", text: String(n) })]));
      });
    });
  }
  function renderNumbers(num) {
    var box = $("numbers");
    box.textContent = "";
    box.appendChild(el("h3", { text: "Numbers from the " + num.n + " rows on screen" }));
    var expect = state.expect !== undefined && state.expect !== "" ? parseFloat(state.expect) : null;
    if (num.metric) {
      var v = num.metric.value === null || num.metric.value === undefined ? NaN : num.metric.value, match = null;
      if (expect !== null && !isNaN(expect)) match = (isNaN(v) && isNaN(expect)) || Math.abs(v - expect) < 1e-9;
      var d = describeMetric(num.metric);
      var shown = d.raw ? fmt(v, 3) : pct(v);
      box.appendChild(el("p", { "class": "headline", id: "recomputed" }, [
        el("strong", { text: d.label + ": " }), el("span", { id: "recomputed-value", "data-value": isNaN(v) ? "nan" : String(v), text: shown }),
        expect === null ? "" : " · report: " + (d.raw ? fmt(expect, 3) : pct(expect)) + " ",
        match === null ? "" : el("span", { id: "recomputed-match", "class": match ? "ok" : "bad", text: match ? "✓ the same" : "✗ differs from the report" })]));
      box.appendChild(el("p", { "class": "muted", id: "recomputed-detail", text: d.detail }));
    }
    if (KIND === "run") {
      if (num.n_given !== num.n) box.appendChild(el("p", { "class": "muted", text: "CS metrics use the given option order, as the report does: " + num.n_given + " of the " + num.n + " rows." }));
      if (!num.groups.length) return;
      var shown = N.definedMetrics(num.groups), left = N.CS_SHOWN.filter(function (m) { return shown.indexOf(m) < 0; });
      var why = left.length ? " Not shown: " + left.map(function (m) { return N.LABELS[m]; }).join(", ") +
        ", which these rows do not define (KB CS reads the English control rows, the others the claimant-language rows)." : "";
      if (!shown.length) { box.appendChild(el("p", { "class": "muted", id: "numbers-none", text: "The rows on screen define no CS metric." + why })); return; }
      var t = el("table", { "class": "data", id: "numbers-table" });
      var heads = ["model", "mode", "rows", "territories"].concat(shown.map(function (m) { return N.LABELS[m]; }));
      t.appendChild(el("thead", null, [el("tr", null, heads.map(function (h) { return el("th", { scope: "col", text: h }); }))]));
      var tb = el("tbody");
      num.groups.forEach(function (g) {
        tb.appendChild(el("tr", null, [g.model, g.mode, String(g.cell.n_rows), String(g.cell.n_territories)].concat(
          shown.map(function (m) { return N.defines(g.cell, m) ? pct(g.cell.metrics[m].mean) : "n/a"; })).map(function (x, i) { return el("td", { "class": i > 1 ? "n" : null, text: x }); })));
      });
      t.appendChild(tb); box.appendChild(t);
      box.appendChild(el("p", { "class": "muted", id: "numbers-caption", text: "×100, mean over runs of each run's value, as report.html computes it (policy " + META.policy + ")." + why + (num.more ? " " + num.more + " more model × mode groups not shown." : "") }));
    } else if (num.groups.length) {
      box.appendChild(el("p", { text: num.groups.map(function (g) { return g.label + " " + pct(g.value) + " (" + g.count + "/" + g.n + ")"; }).join(" · ") }));
    }
  }
  function renderTable(res) {
    var cols = META.columns;
    var t = el("table", { "class": "data samples", id: "samples" });
    var hr = el("tr");
    cols.forEach(function (c) {
      var active = state.sort === c.key;
      var b = el("button", { type: "button", "class": "sort", text: c.label + (active ? (state.dir === "desc" ? " ▼" : " ▲") : ""),
        "aria-label": "sort by " + c.label, onclick: function () {
          if (state.sort === c.key) state.dir = state.dir === "desc" ? "" : "desc"; else { state.sort = c.key; state.dir = ""; }
          refresh();
        } });
      hr.appendChild(el("th", { scope: "col", "class": c.num ? "n" : null, "aria-sort": active ? (state.dir === "desc" ? "descending" : "ascending") : null }, [b]));
    });
    t.appendChild(el("thead", null, [hr]));
    var tb = el("tbody");
    res.rows.forEach(function (r) {
      var tr = el("tr", { tabindex: "0", "data-id": r.id, "aria-label": "open sample " + r.id,
        onclick: function () { openSample(r.id); }, onkeydown: function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); openSample(r.id); } } });
      cols.forEach(function (c) {
        var v = c.key === "id" ? r.id : r[c.key];
        tr.appendChild(el("td", { "class": (c.num ? "n " : "") + (c.key === META.search ? "reply" : ""), text: fmt(v, c.digits) }));
      });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    var box = $("table-box"); box.textContent = ""; box.appendChild(t);
    var pages = Math.max(1, Math.ceil(res.total / PAGE));
    $("pageinfo").textContent = "page " + (res.page + 1) + " of " + pages;
    $("prev").disabled = res.page <= 0; $("next").disabled = res.page + 1 >= pages;
  }
  function openSample(id) {
    state.open = String(id); state.cell = ""; writeHash(state);
    store.sample(id).then(function (r) { openPanel((KIND === "run" ? "Sample" : (META.rows_label || "Item").replace(/s$/, "")) + " #" + id, [renderSample(r)]); });
  }
  var refreshing = 0;
  function refresh() {
    var token = ++refreshing;
    writeHash(state);
    body.dataset.tableReady = "0";
    return store.query(state).then(function (res) {
      if (token !== refreshing) return;
      $("count").textContent = res.total + " of " + res.all + " " + (META.rows_label || "samples").toLowerCase() + " match";
      $("count").dataset.total = String(res.total);
      renderFacets(res.facets);
      renderTable(res);
      body.dataset.tableReady = "1";
      if (res.numbers) { renderNumbers(res.numbers); body.dataset.numbersReady = "1"; return; }
      body.dataset.numbersReady = "0";
      $("numbers").textContent = "computing the numbers of the " + res.total + " rows on screen…";
      return store.numbers(state).then(function (num) {
        if (token !== refreshing) return;
        renderNumbers(num); body.dataset.numbersReady = "1";
      });
    }).catch(function (err) { $("count").textContent = "error: " + err.message; });
  }

  // ---------------------------------------------------------------- start
  function start() {
    setupTabs();
    setupSamples();
    var first = state.tab && tabs.some(function (t) { return t[0] === state.tab; }) ? state.tab
              : (Object.keys(state.f).length || state.metric || state.q ? "samples" : tabs[0][0]);
    var jobs = [];
    if (KIND === "run") { setupMatrix(); jobs.push(renderMatrix()); }
    showTab(first);
    jobs.push(refresh());
    Promise.all(jobs).then(function () {
      if (state.open) openSample(parseInt(state.open, 10));
      else if (state.cell && KIND === "run") { var p = state.cell.split("|"); openCell($("m-territory").value, $("m-model").value, p[0], p[1]); }
      body.dataset.ready = "1";
    });
  }
  window.addEventListener("hashchange", function () {
    /* a link followed inside the page (or the address bar edited): the whole state from the URL */
    var s = readHash();
    if (JSON.stringify(s) === JSON.stringify(state)) return;
    state = s; syncFacetInputs();
    if (state.tab && tabs.some(function (t) { return t[0] === state.tab; })) showTab(state.tab);
    if (KIND === "run") {
      if (state.mt && TERR[state.mt]) $("m-territory").value = state.mt;
      if (state.mm && META.models.indexOf(state.mm) >= 0) $("m-model").value = state.mm;
      $("m-model2").value = META.models.indexOf(state.mm2) >= 0 ? state.mm2 : "";
      renderMatrix();
    }
    refresh().then(function () { if (state.open) openSample(parseInt(state.open, 10)); });
  });
  function numbersFor(hash) {
    /* the rows a link selects and the number it names, without rendering (the browser tests follow every link) */
    var st = readHash(hash);
    var res = store.filter(st), self = store;
    var num = computeNumbers(res.idx.map(function (i) { return self.numberRow(i); }), st);
    return { total: res.idx.length, ids: res.idx, value: num.metric ? num.metric.value : null, expect: st.expect ? parseFloat(st.expect) : null };
  }
  window.bordirView = { state: function () { return state; }, numbers: N, store: store, refresh: refresh,
                        numbersFor: DATA.rows ? numbersFor : null };
  start();
})();

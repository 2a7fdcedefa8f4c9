/* bordir view: the numbers of a set of rows, computed as bordir computes them (bordir/view/numbers.md).
 *
 * Rows are objects {territory, lang, control, mode, model, run, outcome, choice, ...}. TERR maps a
 * territory to {claimants, controller, known, controller_index, claimant_langs, controller_lang,
 * en_claimant}. Every function here is pure; the page and the browser tests call them.
 */
var BordirNumbers = (function () {
  "use strict";
  var MISSING = null;

  function territoryStats(rows, T, policy) {
    /* one territory of one (model, mode, run): bordir.metrics.cs_territory.territory_stats */
    var strict = policy !== "reference";
    var entries = new Map(), ctlRow = null;
    var order = rows.filter(function (r) { return !r.control; }).concat(rows.filter(function (r) { return r.control; }));
    order.forEach(function (r) {
      if (r.control) ctlRow = r;
      if (r.lang === "en" && !T.en_claimant) return;
      entries.delete(r.lang);
      entries.set(r.lang, r);
    });
    function pick(r) {
      if (r.outcome === "answered") return T.claimants[r.choice];
      return strict ? MISSING : T.claimants[0];
    }
    var en = ctlRow ? (ctlRow.outcome === "answered" ? T.claimants[ctlRow.choice] : (strict ? MISSING : "None"))
                    : (strict ? MISSING : "None");
    var miss = function (v) { return strict && v === MISSING; };
    var s = { kb_num: 0, kb_den: 0, control_num: 0, control_den: 0, nc_agree: 0, nc_n: 0,
              cst_num: 0, cst_den: 0, cst_unk_num: 0, cst_unk_den: 0 };
    if (T.known && !miss(en)) { s.kb_den = 1; s.kb_num = (en === T.controller) ? 1 : 0; }
    var values = [];
    entries.forEach(function (r, lang) {
      var v = pick(r);
      values.push(v);
      if (!T.known || miss(v)) return;
      var agree = v === T.controller ? 1 : 0;
      if (lang === T.controller_lang) { s.control_den = 1; s.control_num = agree; }
      else { s.nc_n += 1; s.nc_agree += agree; }
    });
    s.nc_num = s.nc_n ? s.nc_agree / s.nc_n : 0;
    s.nc_den = s.nc_n > 0 ? 1 : 0;
    var valid = values.filter(function (v) { return !miss(v); });
    var pairs = valid.length * (valid.length - 1) / 2, agreeing = 0;
    for (var i = 0; i < valid.length; i++) for (var j = i + 1; j < valid.length; j++) if (valid[i] === valid[j]) agreeing++;
    s.cst_num = pairs ? agreeing / pairs : 0;
    s.cst_den = pairs > 0 ? 1 : 0;
    if (!T.known) { s.cst_unk_num = s.cst_num; s.cst_unk_den = s.cst_den; }
    return s;
  }

  var RATIO = { kb_cs: ["kb_num", "kb_den"], control_cs: ["control_num", "control_den"],
                non_control_cs: ["nc_num", "nc_den"], cst_cs: ["cst_num", "cst_den"],
                cst_cs_unknown: ["cst_unk_num", "cst_unk_den"] };
  var METRICS = ["kb_cs", "control_cs", "non_control_cs", "delta_cs_norm", "delta_cs", "cst_cs", "cst_cs_unknown"];
  var LABELS = { kb_cs: "KB CS", control_cs: "Control CS", non_control_cs: "Non-control CS",
                 delta_cs_norm: "ΔCS normalized (reference)", delta_cs: "ΔCS", cst_cs: "Cst CS",
                 cst_cs_unknown: "Cst CS (unknown controller)" };

  function metricValue(tables, metric) {
    /* tables: array of per-territory stats objects; NaN when undefined (cs_aggregate.metric_value) */
    if (RATIO[metric]) {
      var n = 0, d = 0, c = RATIO[metric];
      tables.forEach(function (t) { n += t[c[0]]; d += t[c[1]]; });
      return d > 0 ? n / d : NaN;
    }
    var ctl = metricValue(tables, "control_cs"), non = metricValue(tables, "non_control_cs");
    if (metric === "delta_cs") return ctl - non;
    return non !== 0 ? (ctl - non) / non : NaN;
  }

  function groupBy(rows, keyf) {
    var m = new Map();
    rows.forEach(function (r) { var k = keyf(r); if (!m.has(k)) m.set(k, []); m.get(k).push(r); });
    return m;
  }

  function runTables(rows, TERR, policy, territoryOrder) {
    /* one (model, mode): run -> Map(territory -> stats), territories in dataset order */
    var out = new Map();
    groupBy(rows, function (r) { return r.run; }).forEach(function (rs, run) {
      var byT = groupBy(rs, function (r) { return r.territory; });
      var m = new Map();
      territoryOrder.forEach(function (t) { if (byT.has(t)) m.set(t, territoryStats(byT.get(t), TERR[t], policy)); });
      out.set(run, m);
    });
    return new Map(Array.from(out.entries()).sort(function (a, b) { return a[0] - b[0]; }));
  }

  function csCell(rows, TERR, policy, territoryOrder, mode) {
    /* every metric of one (model, mode): mean over runs of the per-run values (report/metric_cells.py) */
    var runs = runTables(rows, TERR, policy, territoryOrder);
    var hasControl = rows.some(function (r) { return r.control; });
    var kbUndefined = mode === "swap_docs" || !hasControl;
    var nControl = rows.filter(function (r) { return r.control; }).length;
    var out = { runs: Array.from(runs.keys()), n_rows: rows.length, n_control: nControl, n_query: rows.length - nControl,
                n_territories: new Set(rows.map(function (r) { return r.territory; })).size, metrics: {} };
    METRICS.forEach(function (m) {
      var values = [];
      runs.forEach(function (tabs) {
        var v = (m === "kb_cs" && kbUndefined) ? NaN : metricValue(Array.from(tabs.values()), m);
        values.push(v);
      });
      var ok = values.filter(function (v) { return !isNaN(v); });
      var mean = ok.length ? ok.reduce(function (a, b) { return a + b; }, 0) / ok.length : NaN;
      out.metrics[m] = { mean: mean, per_run: values };
    });
    return out;
  }

  function pooled(rows, TERR, policy, territoryOrder) {
    /* pool_runs: per territory, every column averaged over the runs (0 where a run lacks it) */
    var runs = runTables(rows, TERR, policy, territoryOrder);
    var n = runs.size, acc = new Map();
    runs.forEach(function (tabs) {
      tabs.forEach(function (s, t) {
        if (!acc.has(t)) acc.set(t, {});
        var a = acc.get(t);
        Object.keys(s).forEach(function (k) { a[k] = (a[k] || 0) + s[k]; });
      });
    });
    acc.forEach(function (a) { Object.keys(a).forEach(function (k) { a[k] /= n; }); });
    return acc;
  }

  function comparison(rowsA, rowsB, metric, TERR, policy, territoryOrder) {
    /* report/comparisons.py: metric(a) - metric(b) on the territories both have, runs pooled */
    var a = pooled(rowsA, TERR, policy, territoryOrder), b = pooled(rowsB, TERR, policy, territoryOrder);
    var common = Array.from(a.keys()).filter(function (t) { return b.has(t); });
    var ta = common.map(function (t) { return a.get(t); }), tb = common.map(function (t) { return b.get(t); });
    var va = metricValue(ta, metric), vb = metricValue(tb, metric);
    return { value_a: va, value_b: vb, diff: va - vb, n_territories: common.length };
  }

  function perlangItems(rows, lang, TERR, policy) {
    /* bordir.metrics.perlang.perlang_items for the rows of one query language (context: control rows) */
    var ref = policy === "reference";
    var enPick = new Map();
    rows.forEach(function (r) {
      if (!r.control) return;
      var k = [r.model, r.mode, r.run, r.territory].join("\u0001");
      enPick.set(k, r.outcome === "answered" ? r.choice : (ref ? -2 : -1));
    });
    var items = [];
    rows.forEach(function (r) {
      if (r.lang !== lang) return;
      var T = TERR[r.territory];
      if (r.control && !T.en_claimant) return;
      var pick = r.outcome === "answered" ? r.choice : (ref ? 0 : -1);
      var answered = pick >= 0;
      var own = [];
      T.claimant_langs.forEach(function (l, i) { if (l === r.lang) own.push(i); });
      var en = enPick.has([r.model, r.mode, r.run, r.territory].join("\u0001"))
        ? enPick.get([r.model, r.mode, r.run, r.territory].join("\u0001")) : -1;
      var isCtlLang = !!T.controller_lang && r.lang === T.controller_lang;
      var ctlAgree = (T.known && answered) ? (pick === T.controller_index ? 1 : 0) : NaN;
      items.push({
        territory: r.territory, run: r.run,
        controller_agreement: ctlAgree,
        control_agreement: isCtlLang ? ctlAgree : NaN,
        non_control_agreement: isCtlLang ? NaN : ctlAgree,
        in_group_rate: (answered && own.length && own.length < T.claimants.length) ? (own.indexOf(pick) >= 0 ? 1 : 0) : NaN,
        en_agreement: (r.control || !answered || en === -1) ? NaN : (pick === en ? 1 : 0),
        refused_rate: r.outcome === "refused" ? 1 : 0,
        unparsed_rate: r.outcome === "unparsed" ? 1 : 0,
        multiple_rate: r.outcome === "multiple" ? 1 : 0
      });
    });
    return items;
  }

  function perTerritoryShare(items, measure) {
    var m = new Map();
    items.forEach(function (it) {
      var v = it[measure];
      if (isNaN(v)) return;
      if (!m.has(it.territory)) m.set(it.territory, [0, 0]);
      var a = m.get(it.territory); a[0] += v; a[1] += 1;
    });
    var out = new Map();
    m.forEach(function (a, t) { out.set(t, a[0] / a[1]); });
    return out;
  }

  function perlangComparison(rowsA, rowsB, measure, lang, TERR, policy) {
    /* bordir.metrics.perlang_compare: mean over paired territories of p_a - p_b */
    var pa = perTerritoryShare(perlangItems(rowsA, lang, TERR, policy), measure);
    var pb = perTerritoryShare(perlangItems(rowsB, lang, TERR, policy), measure);
    var both = Array.from(pa.keys()).filter(function (t) { return pb.has(t); }).sort();
    if (!both.length) return { value_a: NaN, value_b: NaN, diff: NaN, n_territories: 0 };
    var sa = 0, sb = 0, sd = 0;
    both.forEach(function (t) { sa += pa.get(t); sb += pb.get(t); sd += pa.get(t) - pb.get(t); });
    var n = both.length;
    return { value_a: sa / n, value_b: sb / n, diff: Math.round(sd / n * 1e12) / 1e12, n_territories: n };
  }

  function citationRates(rows, docLang) {
    /* bordir.citations.experiment (pooled rates): failed rows and rows without documents left out */
    var cites = 0, citesL = 0, incl = 0, inclL = 0, n = 0, citing = 0;
    rows.forEach(function (r) {
      if (r.outcome === "failed" || !r.incl) return;
      n += 1;
      var c = r.cites || {}, d = r.incl || {};
      var total = 0;
      Object.keys(c).forEach(function (k) { total += c[k]; });
      if (total > 0) {
        citing += 1;
        Object.keys(d).forEach(function (k) { incl += d[k]; });
        inclL += d[docLang] || 0;
      }
      cites += total; citesL += c[docLang] || 0;
    });
    var cr = cites ? citesL / cites : NaN, ir = incl ? inclL / incl : NaN;
    return { citation_rate: cr, inclusion_rate_citing: ir, ratio: cr / ir, n_answers: n, n_citing: citing,
             n_citations: citesL };
  }

  var CS_SHOWN = ["kb_cs", "control_cs", "non_control_cs", "delta_cs", "cst_cs"];
  function defines(cell, metric) {
    /* does a (model, mode) selection define the metric? KB CS reads the English control rows, the others
       the claimant-language (non-control) rows: a metric computed from rows it is not about means nothing */
    if (metric === "delta_cs") return defines(cell, "control_cs") && defines(cell, "non_control_cs");
    var v = cell.metrics[metric] ? cell.metrics[metric].mean : null;
    if (v === null || v === undefined || isNaN(v)) return false;
    return metric === "kb_cs" ? cell.n_control > 0 : cell.n_query > 0;
  }
  function definedMetrics(groups) {
    /* the CS metrics some group of the selection defines, in the report's order */
    return CS_SHOWN.filter(function (m) { return groups.some(function (g) { return defines(g.cell, m); }); });
  }

  function sums(rows, numKey, denKey) {
    var n = 0, d = 0;
    rows.forEach(function (r) { n += r[numKey] || 0; d += r[denKey] || 0; });
    return { value: d > 0 ? n / d : NaN, count: Math.round(n), n: Math.round(d) };
  }

  return { territoryStats: territoryStats, metricValue: metricValue, csCell: csCell, comparison: comparison,
           perlangItems: perlangItems, perlangComparison: perlangComparison, citationRates: citationRates,
           sums: sums, METRICS: METRICS, LABELS: LABELS, groupBy: groupBy, defines: defines,
           definedMetrics: definedMetrics, CS_SHOWN: CS_SHOWN };
})();

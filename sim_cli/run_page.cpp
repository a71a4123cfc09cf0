#include "sim_cli/run_page.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

#include "sim_cli/json.hpp"

namespace weft::sim_cli {
namespace {

using sim::Fault;
using sim::RunPicture;

double seconds(Duration d) { return static_cast<double>(d.ns()) / 1e9; }

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view kind_name(Fault::Kind kind) {
  switch (kind) {
    case Fault::Kind::crash: return "crash";
    case Fault::Kind::lose: return "lose";
    case Fault::Kind::leave: return "leave";
    case Fault::Kind::restart: return "restart";
    case Fault::Kind::pause: return "pause";
    case Fault::Kind::cut: return "cut";
    case Fault::Kind::cut_one_way: return "cut";
    case Fault::Kind::partition: return "partition";
    case Fault::Kind::flap: return "flap";
    case Fault::Kind::heal: return "heal";
    case Fault::Kind::spike: return "spike";
    case Fault::Kind::flood: return "flood";
    case Fault::Kind::asks: return "asks";
    case Fault::Kind::truncate: return "truncate";
    case Fault::Kind::corrupt: return "corrupt";
    case Fault::Kind::rogue: return "rogue";
  }
  return "?";
}

std::string_view verdict_name(sim::Verdict v) {
  switch (v) {
    case sim::Verdict::pass: return "pass";
    case sim::Verdict::safety_failure: return "safety failure";
    case sim::Verdict::liveness_failure: return "liveness failure";
    case sim::Verdict::coverage_failure: return "coverage failure";
  }
  return "?";
}

// Each fault's line of the scenario text, without its "at T " prefix: the
// text form ends with one line per fault, in order.
std::vector<std::string> fault_labels(const sim::Scenario& scenario) {
  std::vector<std::string> lines;
  const std::string text = scenario.to_text();
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  std::vector<std::string> labels;
  const std::size_t first = lines.size() - std::min(lines.size(), scenario.faults.size());
  for (std::size_t i = first; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t space = line.find(' ', 3);  // after "at T"
    labels.push_back(space == std::string::npos ? line : line.substr(space + 1));
  }
  labels.resize(scenario.faults.size());
  return labels;
}

// The faults as intervals (or instants) of the run as it played: a crash
// lasts until that node's restart, a cut or partition until the next heal
// (the heal phase heals everything), and anything after the run stopped is
// left out.
void write_faults(JsonWriter& j, const sim::Scenario& scenario, Duration end) {
  const std::vector<std::string> labels = fault_labels(scenario);
  const std::vector<Fault>& faults = scenario.faults;
  j.begin_array();
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const Fault& f = faults[i];
    if (f.at > end) continue;
    Duration to = f.at;
    bool instant = false;
    switch (f.kind) {
      case Fault::Kind::crash:
      case Fault::Kind::lose:
      case Fault::Kind::leave: {
        to = end;
        for (std::size_t k = i + 1; k < faults.size(); ++k) {
          if (faults[k].kind == Fault::Kind::restart && faults[k].nodes[0] == f.nodes[0]) {
            to = faults[k].at;
            break;
          }
        }
        break;
      }
      case Fault::Kind::cut:
      case Fault::Kind::cut_one_way:
      case Fault::Kind::partition: {
        to = scenario.chaos;
        for (std::size_t k = i + 1; k < faults.size(); ++k) {
          if (faults[k].kind == Fault::Kind::heal) {
            to = faults[k].at;
            break;
          }
        }
        break;
      }
      case Fault::Kind::pause:
      case Fault::Kind::flap:
      case Fault::Kind::spike:
      case Fault::Kind::flood:
      case Fault::Kind::asks: to = f.at + f.length; break;
      case Fault::Kind::restart:
      case Fault::Kind::heal:
      case Fault::Kind::truncate:
      case Fault::Kind::corrupt:
      case Fault::Kind::rogue: instant = true; break;
    }
    to = std::min(to, end);
    j.begin_object();
    j.key("kind").value(kind_name(f.kind));
    j.key("label").value(labels[i]);
    j.key("from").value(seconds(f.at), 3);
    j.key("to").value(seconds(std::max(to, f.at)), 3);
    j.key("instant").value(instant);
    j.key("nodes").begin_array();
    for (std::size_t n : f.nodes) j.value(static_cast<std::uint64_t>(n));
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

// A row as a flat array: from, to, state, from, to, state, ...
void write_spans(JsonWriter& j, const std::vector<RunPicture::Span>& row) {
  j.begin_array();
  for (const RunPicture::Span& s : row) {
    j.value(static_cast<std::uint64_t>(s.from));
    j.value(static_cast<std::uint64_t>(s.to));
    j.value(static_cast<std::uint64_t>(s.state));
  }
  j.end_array();
}

std::string page_data(const RunPageInput& in) {
  const sim::Scenario& scenario = *in.scenario;
  const sim::RunResult& result = *in.result;
  const RunPicture& p = *in.picture;
  JsonWriter j;
  j.begin_object();
  j.key("command").value(in.command);
  j.key("replay").value(in.replay);
  j.key("verdict").value(verdict_name(result.verdict));
  j.key("exit").value(static_cast<int>(result.verdict));
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(result.trace_hash));
  j.key("trace_hash").value(std::string_view(hash));
  j.key("seed").value(scenario.seed);
  j.key("nodes").value(static_cast<std::uint64_t>(p.nodes));
  j.key("events").value(result.events);
  j.key("chaos").value(seconds(p.chaos), 3);
  j.key("end").value(seconds(p.end), 3);
  j.key("cell").value(seconds(p.cell), 3);
  j.key("bucket").value(seconds(p.bucket), 3);
  if (result.healed_after) {
    j.key("healed_after").value(seconds(*result.healed_after), 3);
  } else {
    j.key("healed_after").null();
  }
  j.key("faults");
  write_faults(j, scenario, p.end);
  j.key("process").begin_array();
  for (const auto& row : p.process) write_spans(j, row);
  j.end_array();
  j.key("views").begin_array();
  for (const auto& observer : p.views) {
    j.begin_array();
    for (const auto& row : observer) write_spans(j, row);
    j.end_array();
  }
  j.end_array();
  j.key("rates").begin_object();
  const auto series = [&](std::string_view name, std::uint64_t RunPicture::Bucket::*field) {
    j.key(name).begin_array();
    for (const RunPicture::Bucket& b : p.rates) j.value(b.*field);
    j.end_array();
  };
  series("messages", &RunPicture::Bucket::messages);
  series("frames", &RunPicture::Bucket::frames);
  series("asks_replied", &RunPicture::Bucket::asks_replied);
  series("asks_failed", &RunPicture::Bucket::asks_failed);
  series("dead_letters", &RunPicture::Bucket::dead_letters);
  j.end_object();
  const Duration failed_at = p.first_failure.value_or(p.end);
  j.key("failures").begin_array();
  for (const std::string& line : result.failures) {
    j.begin_object();
    j.key("at").value(seconds(failed_at), 3);
    j.key("text").value(line);
    j.key("replay").value(in.replay);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.text();
}

constexpr std::string_view kStyle = R"css(
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 16px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
code, pre { font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; }
.meta { color: #555; margin: 2px 0; }
.verdict-pass { color: #1a7f37; font-weight: bold; }
.verdict-fail { color: #c62828; font-weight: bold; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 8px 0; }
.legend span.sw { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #0002; }
#failures li { margin: 4px 0; }
#failures code.replay { background: #fbe9e7; padding: 1px 4px; user-select: all; }
#chart svg { display: block; }
#chart text { font-size: 11px; fill: #333; }
#chart text.small { font-size: 9px; fill: #666; }
#chart text.head { font-weight: bold; }
#chart text.flabel { font-size: 10px; fill: #111; pointer-events: none; }
#chart text.failure-label { font-size: 11px; font-weight: bold; fill: #c62828; }
#render-error { color: #c62828; white-space: pre-wrap; }
details { margin: 8px 0; }
)css";

// Draws the data (the JSON element #weft-run) as SVG into #chart. Each drawn
// element carries a class and data attributes (lane, fault, failure) so a
// test can read what was rendered, and a <title> for a tooltip.
constexpr std::string_view kScript = R"js(
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('weft-run').textContent);
  const NS = 'http://www.w3.org/2000/svg';
  const STATUS = ['joining', 'up', 'leaving', 'exiting', 'down', 'removed', 'absent'];
  const STATUS_COLOR = ['#9ecae1', '#41ab5d', '#fdd0a2', '#fd8d3c', '#7b3294', '#bdbdbd', '#f4f4f4'];
  const PROCESS = ['running', 'paused', 'crashed', 'shut down'];
  const PROCESS_COLOR = [null, '#fec44f', '#252525', '#969696'];
  const FAULT_COLOR = {
    crash: '#252525', lose: '#525252', restart: '#41ab5d', pause: '#fec44f', cut: '#fb6a4a',
    partition: '#ef3b2c', flap: '#fc9272', heal: '#238b45', spike: '#9e9ac8', flood: '#6baed6',
    asks: '#74c476', truncate: '#d7301f', corrupt: '#d7301f', rogue: '#d7301f'
  };
  const el = (name, attrs, parent) => {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  };
  const title = (e, text) => { el('title', {}, e).textContent = text; return e; };
  const fmt = (s) => s.toFixed(s < 10 ? 2 : 1) + ' s';

  const N = D.nodes;
  const T = Math.max(D.end, 0.001);
  const LEFT = 96, WIDTH = 1080, RIGHT = 24;
  const x = (t) => LEFT + Math.min(Math.max(t, 0), T) / T * WIDTH;
  const rowH = N <= 8 ? 9 : N <= 16 ? 5 : 3;
  const procH = 8, laneGap = 8;

  // Faults packed into as few rows as they need (an interval or instant
  // starts a row only if it overlaps every row so far).
  const rowsEnd = [];
  const faultRow = D.faults.map((f) => {
    // Room for the label: about 6 px a character at 10 px.
    const from = x(f.from) - (f.instant ? 6 : 0), to = Math.max(x(f.to), x(f.from) + 12 + f.label.length * 6) + 4;
    let r = rowsEnd.findIndex((end) => end <= from);
    if (r < 0) { r = rowsEnd.length; rowsEnd.push(0); }
    rowsEnd[r] = to;
    return r;
  });
  const faultH = 16;
  const axisH = 34;
  const faultsTop = axisH + 18, faultsH = Math.max(1, rowsEnd.length) * faultH;
  const ratesTop = faultsTop + faultsH + 26, rateH = 56;
  const asksTop = ratesTop + rateH + 22;
  const lanesTop = asksTop + rateH + 26;
  const laneH = procH + 2 + N * rowH + laneGap + 12;
  const height = lanesTop + N * laneH + 10;
  const svg = el('svg', { width: LEFT + WIDTH + RIGHT, height: height, viewBox: '0 0 ' + (LEFT + WIDTH + RIGHT) + ' ' + height, id: 'run-svg' });
  const defs = el('defs', {}, svg);
  const pat = el('pattern', { id: 'unreachable', width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
  el('rect', { width: 2, height: 4, fill: '#e41a1c' }, pat);

  // Time axis, phases and grid.
  let tick = 1;
  for (const t of [1, 2, 5, 10, 20, 30, 60, 120, 300, 600]) { tick = t; if (T / t <= 16) break; }
  const grid = el('g', { class: 'grid' }, svg);
  el('rect', { x: x(0), y: 2, width: x(Math.min(D.chaos, T)) - x(0), height: 12, fill: '#fde0dd' }, grid);
  el('text', { x: x(0) + 4, y: 12 }, grid).textContent = 'chaos';
  if (T > D.chaos) {
    el('rect', { x: x(D.chaos), y: 2, width: x(T) - x(D.chaos), height: 12, fill: '#e5f5e0' }, grid);
    el('text', { x: x(D.chaos) + 4, y: 12 }, grid).textContent =
      'heal' + (D.healed_after !== null ? ' (one view after ' + fmt(D.healed_after) + ')' : '');
  }
  for (let t = 0; t <= T + 1e-9; t += tick) {
    el('line', { x1: x(t), x2: x(t), y1: 16, y2: height, stroke: '#eee' }, grid);
    el('text', { x: x(t), y: 28, 'text-anchor': 'middle', class: 'small' }, grid).textContent = t + ' s';
  }
  if (D.chaos < T) el('line', { x1: x(D.chaos), x2: x(D.chaos), y1: 2, y2: height, stroke: '#41ab5d', 'stroke-dasharray': '4 3' }, grid);

  // Faults.
  const faults = el('g', { class: 'faults' }, svg);
  el('text', { x: 4, y: faultsTop - 6, class: 'head' }, faults).textContent = 'faults';
  D.faults.forEach((f, i) => {
    const y = faultsTop + faultRow[i] * faultH;
    const color = FAULT_COLOR[f.kind] || '#888';
    const g = el('g', { class: 'fault' + (f.instant ? ' instant' : ''), 'data-kind': f.kind, 'data-from': f.from, 'data-to': f.to }, faults);
    title(g, f.label + (f.instant ? ' at ' + fmt(f.from) : ' from ' + fmt(f.from) + ' to ' + fmt(f.to)));
    if (f.instant) {
      const cx = x(f.from), cy = y + faultH / 2 - 1;
      el('path', { d: 'M' + cx + ' ' + (cy - 6) + 'L' + (cx + 5) + ' ' + cy + 'L' + cx + ' ' + (cy + 6) + 'L' + (cx - 5) + ' ' + cy + 'Z', fill: color }, g);
      el('text', { x: cx + 7, y: cy + 4, class: 'flabel' }, g).textContent = f.label;
    } else {
      el('rect', { x: x(f.from), y: y + 1, width: Math.max(2, x(f.to) - x(f.from)), height: faultH - 3, fill: color, 'fill-opacity': 0.55, rx: 2 }, g);
      el('text', { x: x(f.from) + 3, y: y + faultH - 5, class: 'flabel' }, g).textContent = f.label;
    }
  });

  // Rates: per bucket, as a rate a second.
  const rateChart = (top, label, series) => {
    const g = el('g', { class: 'rates', 'data-series': series.map((s) => s.name).join(' ') }, svg);
    let max = 1;
    // The last bucket may be cut short by the end of the run.
    const rate = (v, i) => v / Math.max(Math.min(D.bucket, T - i * D.bucket), D.cell);
    for (const s of series) s.values.forEach((v, i) => { max = Math.max(max, rate(v, i)); });
    el('text', { x: 4, y: top - 6, class: 'head' }, g).textContent = label;
    el('text', { x: LEFT - 4, y: top + 8, 'text-anchor': 'end', class: 'small' }, g).textContent = Math.round(max) + '/s';
    el('text', { x: LEFT - 4, y: top + rateH, 'text-anchor': 'end', class: 'small' }, g).textContent = '0';
    el('line', { x1: LEFT, x2: LEFT + WIDTH, y1: top + rateH, y2: top + rateH, stroke: '#ccc' }, g);
    for (const s of series) {
      let d = '';
      s.values.forEach((v, i) => {
        const y = top + rateH - rate(v, i) / max * rateH;
        d += (i === 0 ? 'M' : 'L') + x(i * D.bucket).toFixed(1) + ' ' + y.toFixed(1) + 'L' + x(Math.min((i + 1) * D.bucket, T)).toFixed(1) + ' ' + y.toFixed(1);
      });
      if (d) title(el('path', { d: d, fill: 'none', stroke: s.color, 'stroke-width': 1.5, class: 'rate', 'data-name': s.name }, g), s.name + ' per second');
    }
    el('text', { x: LEFT + WIDTH, y: top - 6, 'text-anchor': 'end', class: 'small' }, g).textContent =
      series.map((s) => s.name).join(', ') + ' (per ' + D.bucket + ' s bucket, as /s)';
  };
  rateChart(ratesTop, 'messages/s', [
    { name: 'user messages', values: D.rates.messages, color: '#2171b5' },
    { name: 'frames read', values: D.rates.frames, color: '#9ecae1' },
    { name: 'dead letters', values: D.rates.dead_letters, color: '#e6550d' }]);
  rateChart(asksTop, 'asks/s', [
    { name: 'replied', values: D.rates.asks_replied, color: '#238b45' },
    { name: 'failed (timeout, target down, rejected)', values: D.rates.asks_failed, color: '#e31a1c' }]);

  // Lanes: node i's own process, then its view of every member.
  const cell = D.cell;
  for (let i = 0; i < N; ++i) {
    const top = lanesTop + i * laneH;
    const lane = el('g', { class: 'lane', 'data-node': i + 1 }, svg);
    el('text', { x: 4, y: top + 8, class: 'head' }, lane).textContent = 'n' + (i + 1) + "'s view";
    el('rect', { x: LEFT, y: top, width: WIDTH, height: procH, fill: '#f7f7f7' }, lane);
    const proc = D.process[i];
    for (let k = 0; k < proc.length; k += 3) {
      const state = proc[k + 2];
      if (!PROCESS_COLOR[state]) continue;
      title(el('rect', { x: x(proc[k] * cell), y: top, width: Math.max(1, x(proc[k + 1] * cell) - x(proc[k] * cell)), height: procH,
        fill: PROCESS_COLOR[state], class: 'process', 'data-state': PROCESS[state] }, lane),
        'n' + (i + 1) + ' ' + PROCESS[state] + ' ' + fmt(proc[k] * cell) + ' to ' + fmt(proc[k + 1] * cell));
    }
    const rowsTop = top + procH + 2;
    for (let j = 0; j < N; ++j) {
      const y = rowsTop + j * rowH;
      const row = D.views[i][j];
      const rg = el('g', { class: 'view', 'data-observer': i + 1, 'data-subject': j + 1 }, lane);
      if (rowH >= 8) el('text', { x: LEFT - 4, y: y + rowH - 1, 'text-anchor': 'end', class: 'small' }, rg).textContent = 'n' + (j + 1);
      for (let k = 0; k < row.length; k += 3) {
        const x0 = x(row[k] * cell), x1 = Math.max(x0 + 1, x(row[k + 1] * cell));
        const status = row[k + 2] & 7, unreachable = (row[k + 2] & 8) !== 0;
        const what = 'n' + (i + 1) + ' sees n' + (j + 1) + ' ' + STATUS[status] + (unreachable ? ', unreachable' : '') +
          ', ' + fmt(row[k] * cell) + ' to ' + fmt(row[k + 1] * cell);
        title(el('rect', { x: x0, y: y, width: x1 - x0, height: rowH - 1, fill: STATUS_COLOR[status], class: 'status', 'data-status': STATUS[status] }, rg), what);
        if (unreachable) title(el('rect', { x: x0, y: y, width: x1 - x0, height: rowH - 1, fill: 'url(#unreachable)', class: 'unreachable' }, rg), what);
      }
    }
  }

  // Failures: a line through everything at the time each was found; one
  // label for the first, counting the others (they share its time or follow).
  D.failures.forEach((f, n) => {
    const g = el('g', { class: 'failure', 'data-at': f.at, 'data-replay': f.replay, 'data-text': f.text }, svg);
    title(g, f.text + '\nat ' + fmt(f.at) + '\nreplay: ' + f.replay);
    el('line', { x1: x(f.at), x2: x(f.at), y1: 0, y2: height, stroke: '#c62828', 'stroke-width': 2 }, g);
    if (n > 0) return;
    const right = x(f.at) > LEFT + WIDTH - 80;
    el('text', { x: x(f.at) + (right ? -4 : 4), y: faultsTop - 6, 'text-anchor': right ? 'end' : 'start', class: 'failure-label' }, g)
      .textContent = '\u2716 ' + f.text.split(':')[0] + (D.failures.length > 1 ? ' (+' + (D.failures.length - 1) + ' more)' : '');
  });

  document.getElementById('chart').appendChild(svg);
  document.body.setAttribute('data-rendered', 'yes');
})();
)js";

}  // namespace

std::string render_run_page(const RunPageInput& in) {
  const sim::RunResult& result = *in.result;
  const RunPicture& p = *in.picture;
  const bool passed = result.verdict == sim::Verdict::pass;
  std::string page;
  page.reserve(64 * 1024);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<title>" + html_escape(in.command) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  page += "<h1>weft-sim: " + std::to_string(p.nodes) + " nodes, " + html_escape(std::string(verdict_name(result.verdict))) +
          "</h1>\n";
  char hash[24];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(result.trace_hash));
  char line[256];
  std::snprintf(line, sizeof line, "verdict <span class=\"%s\">%s</span> &middot; trace hash <code>%s</code> &middot; %.3f s simulated &middot; %llu events",
                passed ? "verdict-pass" : "verdict-fail", passed ? "pass" : std::string(verdict_name(result.verdict)).c_str(), hash,
                static_cast<double>(p.end.ns()) / 1e9, static_cast<unsigned long long>(result.events));
  page += "<p class=\"meta\"><code>" + html_escape(in.command) + "</code></p>\n<p class=\"meta\">" + line + "</p>\n";
  if (!result.failures.empty()) {
    page += "<ol id=\"failures\">\n";
    const double at = static_cast<double>(p.first_failure.value_or(p.end).ns()) / 1e9;
    for (const std::string& failure : result.failures) {
      std::snprintf(line, sizeof line, "at %.3f s: ", at);
      page += "<li>" + std::string(line) + html_escape(failure) + "<br>replay: <code class=\"replay\">" +
              html_escape(in.replay) + "</code></li>\n";
    }
    page += "</ol>\n";
  }
  page += "<div class=\"legend\">";
  const std::pair<const char*, const char*> legend[] = {
      {"#9ecae1", "joining"}, {"#41ab5d", "up"}, {"#fdd0a2", "leaving"}, {"#fd8d3c", "exiting"},
      {"#7b3294", "down"}, {"#bdbdbd", "removed"}, {"#f4f4f4", "not in the view"},
      {"repeating-linear-gradient(45deg,#e41a1c 0 2px,transparent 2px 4px)", "unreachable"},
      {"#fec44f", "process paused"}, {"#252525", "process crashed"}, {"#969696", "process shut down"}};
  for (const auto& [color, name] : legend) {
    page += "<span><span class=\"sw\" style=\"background:" + std::string(color) + "\"></span>" + name + "</span>";
  }
  page += "</div>\n<p class=\"meta\">Each lane is one node: its own process on top, then one row per member, "
          "colored by that node's view of it. Hover for times.</p>\n";
  page += "<div id=\"chart\"></div>\n<div id=\"render-error\"></div>\n";
  page += "<details><summary>scenario</summary><pre>" + html_escape(in.scenario->to_text()) + "</pre></details>\n";
  page += "<script type=\"application/json\" id=\"weft-run\">" + page_data(in) + "</script>\n";
  page += "<script>\ntry {" + std::string(kScript) +
          "} catch (e) { document.getElementById('render-error').textContent = 'could not draw the run: ' + e; }\n</script>\n";
  page += "</body>\n</html>\n";
  return page;
}

}  // namespace weft::sim_cli

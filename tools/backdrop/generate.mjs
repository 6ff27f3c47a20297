// Generates mods/ahd/backdrop.xml: the sea, the 1861 states as land areas, their borders
// and the coast, in board coordinates, from the US Census Bureau's cartographic state
// boundaries (2017) as the npm package us-atlas ships them.
//
// The board is the game's truth: the boxes stay where mods/ahd/map.xml puts them, and the
// geography is fitted to them. Each state outline is projected (Albers equal-area conic,
// d3-geo's US default), then mapped onto the board by a polynomial transform fitted by
// least squares to the real positions of the towns in cities.tsv and their boxes' x/y.
// Shared borders are simplified once (topojson-simplify, in board pixels), so states
// still meet exactly; rings are clipped to the board plus a margin.
//
//   node generate.mjs            writes ../../mods/ahd/backdrop.xml and prints the fit
//   node generate.mjs --check    generates twice into a temporary folder, compares the
//                                bytes with each other and with the committed file
//   node generate.mjs --out F    writes F instead
//
// Everything here is deterministic: no clock, no randomness, fixed number formatting.

import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import * as topojson from "topojson-client";
import { presimplify, simplify, planarTriangleArea } from "topojson-simplify";
import { geoAlbers, geoContains } from "d3-geo";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const MOD = join(here, "..", "..", "mods", "ahd");
const OUT = join(MOD, "backdrop.xml");

/** Polynomial degree of the fit (1 = affine). Chosen by leave-one-out error: the
 * report in the generated file compares it with degrees 2-3 and thin-plate splines. */
const DEGREE = 1;
/** Margin around the board that the backdrop covers, in board pixels; none at the top,
 * where Canada begins: us-atlas holds only the United States, so Ontario would read as
 * open water joining Lakes Erie and Huron. */
const MARGIN = 400;
const TOP_MARGIN = 0;
/** Visvalingam area threshold in square board pixels: smaller corners are dropped. */
const SIMPLIFY_AREA = 6;
/** States that were not states in 1861 get their 1861 name (borders unchanged here). */
const NAME_1861 = { Oklahoma: "Indian Territory" };

// --- inputs ---------------------------------------------------------------------------

function readBoxes() {
  const xml = readFileSync(join(MOD, "map.xml"), "utf8");
  const boxes = new Map();
  for (const m of xml.matchAll(/<box\s[^>]*>/g)) {
    const tag = m[0];
    const attr = (n) => (tag.match(new RegExp(`\\s${n}="([^"]*)"`)) || [])[1];
    boxes.set(attr("name"), { x: +attr("x"), y: +attr("y"), state: attr("state") });
  }
  return boxes;
}

function readCities() {
  const rows = readFileSync(join(here, "cities.tsv"), "utf8")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => l.split("\t"));
  return rows.slice(1).map(([box, lat, lon, state]) => ({ box, lat: +lat, lon: +lon, state }));
}

// --- the fit --------------------------------------------------------------------------

const projection = geoAlbers(); // d3's default: parallels 29.5N and 45.5N, centred on the US

/** The polynomial terms of a normalised projected point. */
function terms([u, v], degree) {
  const t = [];
  for (let d = 0; d <= degree; d++) for (let i = 0; i <= d; i++) t.push(u ** (d - i) * v ** i);
  return t;
}

/** Least squares by the normal equations (Gauss-Jordan with partial pivoting). */
function solve(rows, rhs) {
  const n = rows[0].length;
  const a = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n + 1 }, (_, j) =>
      rows.reduce((s, r, k) => s + r[i] * (j < n ? r[j] : rhs[k]), 0),
    ),
  );
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r][c] / a[c][c];
      for (let j = c; j <= n; j++) a[r][j] -= f * a[c][j];
    }
  }
  return a.map((row, i) => row[n] / row[i]);
}

/** Solves the square system a x = b (Gaussian elimination, partial pivoting). */
function gauss(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let j = c; j <= n; j++) m[r][j] -= f * m[c][j];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let j = r + 1; j < n; j++) s -= m[r][j] * x[j];
    x[r] = s / m[r][r];
  }
  return x;
}

/** A smoothing thin-plate spline (affine part plus bending, `lambda` trading residuals
 * for smoothness), fitted to board (x, y) over normalised projected lon/lat. */
function fitSpline(points, lambda) {
  const proj = points.map((p) => projection([p.lon, p.lat]));
  const mean = [0, 1].map((k) => proj.reduce((s, q) => s + q[k], 0) / proj.length);
  const spread = Math.max(...proj.map((q) => Math.hypot(q[0] - mean[0], q[1] - mean[1])));
  const norm = (q) => [(q[0] - mean[0]) / spread, (q[1] - mean[1]) / spread];
  const c = proj.map(norm);
  const phi = (r) => (r > 0 ? r * r * Math.log(r) : 0);
  const n = c.length;
  const a = [];
  for (let i = 0; i < n; i++) {
    const row = c.map((q, j) => phi(Math.hypot(q[0] - c[i][0], q[1] - c[i][1])) + (i === j ? lambda : 0));
    a.push([...row, 1, c[i][0], c[i][1]]);
  }
  for (let k = 0; k < 3; k++) a.push([...c.map((q) => (k === 0 ? 1 : q[k - 1])), 0, 0, 0]);
  const wx = gauss(a, [...points.map((p) => p.x), 0, 0, 0]);
  const wy = gauss(a, [...points.map((p) => p.y), 0, 0, 0]);
  const at = (w, q) =>
    w[n] + w[n + 1] * q[0] + w[n + 2] * q[1] + c.reduce((s, ci, i) => s + w[i] * phi(Math.hypot(q[0] - ci[0], q[1] - ci[1])), 0);
  const fromProjected = (q) => {
    const u = norm(q);
    return [at(wx, u), at(wy, u)];
  };
  return { fromProjected, toBoard: (lonlat) => fromProjected(projection(lonlat)) };
}

/** Fits board (x, y) to projected lon/lat; returns the map from lon/lat to the board. */
function fit(points, degree) {
  if (degree < 0) return fitSpline(points, -degree);
  const proj = points.map((p) => projection([p.lon, p.lat]));
  const mean = [0, 1].map((k) => proj.reduce((s, q) => s + q[k], 0) / proj.length);
  const spread = Math.max(...proj.map((q) => Math.hypot(q[0] - mean[0], q[1] - mean[1])));
  const norm = (q) => [(q[0] - mean[0]) / spread, (q[1] - mean[1]) / spread];
  const rows = proj.map((q) => terms(norm(q), degree));
  const cx = solve(rows, points.map((p) => p.x));
  const cy = solve(rows, points.map((p) => p.y));
  const dot = (c, t) => c.reduce((s, ci, i) => s + ci * t[i], 0);
  const fromProjected = (q) => {
    const t = terms(norm(q), degree);
    return [dot(cx, t), dot(cy, t)];
  };
  return { fromProjected, toBoard: (lonlat) => fromProjected(projection(lonlat)) };
}

function stats(errors) {
  const s = [...errors].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
}

function residuals(points, degree) {
  const { toBoard } = fit(points, degree);
  const fitted = points.map((p) => {
    const [x, y] = toBoard([p.lon, p.lat]);
    return { box: p.box, err: Math.hypot(x - p.x, y - p.y) };
  });
  // Leave-one-out: each town predicted by a fit made without it (guards against a
  // polynomial that bends to every point).
  const loo = points.map((p, i) => {
    const [x, y] = fit(points.filter((_, j) => j !== i), degree).toBoard([p.lon, p.lat]);
    return Math.hypot(x - p.x, y - p.y);
  });
  return { fitted, fit: stats(fitted.map((f) => f.err)), loo: stats(loo) };
}

// --- geometry -------------------------------------------------------------------------

/** us-atlas's topology with every arc point mapped to board pixels (unquantized). */
function boardTopology(topo, toBoard) {
  const [sx, sy] = topo.transform.scale;
  const [tx, ty] = topo.transform.translate;
  const arcs = topo.arcs.map((arc) => {
    let x = 0;
    let y = 0;
    return arc.map(([dx, dy]) => {
      x += dx;
      y += dy;
      return toBoard([x * sx + tx, y * sy + ty]);
    });
  });
  return { type: "Topology", objects: topo.objects, arcs };
}

/** Sutherland-Hodgman: a ring clipped to a rectangle (one ring, possibly with
 * zero-width bridges along the rectangle's edges, which fill nothing). */
function clipRing(ring, [x0, y0, x1, y1]) {
  const edges = [
    [(p) => p[0] >= x0, (a, b) => at(a, b, (x0 - a[0]) / (b[0] - a[0]))],
    [(p) => p[0] <= x1, (a, b) => at(a, b, (x1 - a[0]) / (b[0] - a[0]))],
    [(p) => p[1] >= y0, (a, b) => at(a, b, (y0 - a[1]) / (b[1] - a[1]))],
    [(p) => p[1] <= y1, (a, b) => at(a, b, (y1 - a[1]) / (b[1] - a[1]))],
  ];
  let out = ring;
  for (const [inside, cross] of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const a = input[(i + input.length - 1) % input.length];
      const b = input[i];
      if (inside(b)) {
        if (!inside(a)) out.push(cross(a, b));
        out.push(b);
      } else if (inside(a)) out.push(cross(a, b));
    }
    if (!out.length) break;
  }
  return out;
}

function at(a, b, t) {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

/** A polyline clipped to a rectangle: the pieces inside (Liang-Barsky per segment). */
function clipLine(line, [x0, y0, x1, y1]) {
  const pieces = [];
  let cur = null;
  for (let i = 1; i < line.length; i++) {
    const [a, b] = [line[i - 1], line[i]];
    let [t0, t1] = [0, 1];
    const d = [b[0] - a[0], b[1] - a[1]];
    const ok = [
      [-d[0], a[0] - x0],
      [d[0], x1 - a[0]],
      [-d[1], a[1] - y0],
      [d[1], y1 - a[1]],
    ].every(([p, q]) => {
      if (p === 0) return q >= 0;
      const r = q / p;
      if (p < 0) t0 = Math.max(t0, r);
      else t1 = Math.min(t1, r);
      return t0 <= t1;
    });
    if (!ok) {
      cur = null;
      continue;
    }
    const [pa, pb] = [at(a, b, t0), at(a, b, t1)];
    if (!cur || t0 > 0) {
      cur = [pa];
      pieces.push(cur);
    }
    cur.push(pb);
    if (t1 < 1) cur = null;
  }
  return pieces.filter((p) => p.length >= 2);
}

const fmt = (n) => {
  const s = (Math.round(n * 10) / 10).toFixed(1);
  return (s.endsWith(".0") ? s.slice(0, -2) : s).replace(/^-0$/, "0");
};

/** Points as the backdrop file writes them, dropping repeats left by rounding. */
function points(pts) {
  const out = [];
  for (const p of pts) {
    const s = `${fmt(p[0])},${fmt(p[1])}`;
    if (out[out.length - 1] !== s) out.push(s);
  }
  return out;
}

const esc = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

// --- the file -------------------------------------------------------------------------

function generate() {
  const atlasPkg = require("us-atlas/package.json");
  const topo = require("us-atlas/states-10m.json");
  const boxes = readBoxes();
  const cities = readCities().map((c) => {
    const b = boxes.get(c.box);
    if (!b) throw new Error(`cities.tsv: no box named '${c.box}' in map.xml`);
    return { ...c, x: b.x, y: b.y };
  });

  const states = topojson.feature(topo, topo.objects.states).features;
  const byName = new Map(states.map((f) => [f.properties.name, f]));
  const abbrev = stateAbbrev();
  // Each town lies in the state the table says (catches a mistyped coordinate).
  for (const c of cities) {
    const st = byName.get(abbrev.get(c.state));
    if (!st || !geoContains(st, [c.lon, c.lat]))
      throw new Error(`cities.tsv: ${c.box} (${c.lat}, ${c.lon}) is not in ${c.state}`);
  }

  const report = [1, 2, 3, -0.01, -0.1].map((d) => ({ degree: d, ...residuals(cities, d) }));
  const chosen = report.find((r) => r.degree === DEGREE);
  const { toBoard } = fit(cities, DEGREE);

  const w = +readFileSync(join(MOD, "map.xml"), "utf8").match(/<map[^>]*\swidth="(\d+)"/)[1];
  const h = +readFileSync(join(MOD, "map.xml"), "utf8").match(/<map[^>]*\sheight="(\d+)"/)[1];
  const extent = [-MARGIN, -TOP_MARGIN, w + MARGIN, h + MARGIN];

  const board = boardTopology(topo, toBoard);
  const simple = simplify(presimplify(board, planarTriangleArea), SIMPLIFY_AREA);
  const geoms = simple.objects.states.geometries;
  const isVA = (g) => g.properties.name === "Virginia";
  const isWV = (g) => g.properties.name === "West Virginia";

  // 1861: West Virginia is part of Virginia (it was admitted on 20 June 1863).
  const areas = [];
  for (const g of geoms) {
    if (isWV(g)) continue;
    const geometry = isVA(g)
      ? topojson.merge(simple, geoms.filter((s) => isVA(s) || isWV(s)))
      : topojson.feature(simple, g).geometry;
    const polys = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
    const rings = polys
      .map((p) => p.map((r) => clipRing(r.slice(0, -1), extent)))
      .filter((p) => p[0].length >= 3)
      .map((p) => p.map(points).filter((r) => r.length >= 3))
      .filter((p) => p.length && p[0].length >= 3);
    if (rings.length) areas.push({ name: NAME_1861[g.properties.name] || g.properties.name, rings });
  }
  areas.sort((a, b) => (a.name < b.name ? -1 : 1));

  const pair = (a, b, x, y) => (x(a) && y(b)) || (y(a) && x(b));
  const lines = (style, filter) =>
    topojson
      .mesh(simple, simple.objects.states, filter)
      .coordinates.flatMap((l) => clipLine(l, extent))
      .map(points)
      .filter((l) => l.length >= 2)
      .map((l) => ({ style, l }));
  const borders = [
    ...lines("coast", (a, b) => a === b),
    ...lines("border", (a, b) => a !== b && !pair(a, b, isVA, isWV)),
    ...lines("later-border", (a, b) => pair(a, b, isVA, isWV)),
  ];

  // Boxes whose position falls outside their state's fitted outline (today's states).
  const misplaced = [];
  const boardStates = topojson.feature(simple, simple.objects.states).features;
  for (const [name, b] of boxes) {
    const st = boardStates.find((f) => f.properties.name === abbrev.get(b.state));
    // A box the board puts in Virginia may lie in today's West Virginia (1861 Virginia).
    const also = b.state === "VA" ? boardStates.find((f) => f.properties.name === "West Virginia") : null;
    const inside = (f) => f && planarContains(f.geometry, [b.x, b.y]);
    if (!inside(st) && !inside(also)) {
      const where = boardStates.find((f) => planarContains(f.geometry, [b.x, b.y]));
      misplaced.push(`${name} (${b.state}) in ${where ? where.properties.name : "the sea"}`);
    }
  }

  const r = (n) => n.toFixed(1);
  const fitLines = report.map(
    (f) =>
      `${f.degree > 0 ? `polynomial degree ${f.degree}` : `thin-plate spline lambda ${-f.degree}`}: residual median ${r(f.fit.median)} max ${r(f.fit.max)}; leave-one-out median ${r(f.loo.median)} max ${r(f.loo.max)}`,
  );
  const worst = [...chosen.fitted].sort((a, b) => b.err - a.err).slice(0, 5);
  const out = [];
  out.push(`<?xml version="1.0" encoding="UTF-8"?>`);
  out.push(`<!-- Generated by tools/backdrop/generate.mjs; do not edit (see tools/backdrop/README.md).`);
  out.push(`     Source: US Census Bureau cartographic boundary files (states, 2017; public domain), as`);
  out.push(`     TopoJSON in the npm package us-atlas ${atlasPkg.version} (ISC licence).`);
  out.push(`     1861: West Virginia drawn as part of Virginia (its 1863 border as "later-border");`);
  out.push(`     Oklahoma named Indian Territory. Other borders in this area did not change after 1861.`);
  out.push(`     Fit of ${cities.length} towns (cities.tsv) to their boxes, in board pixels, degree ${DEGREE} used:`);
  for (const l of fitLines) out.push(`       ${l}`);
  out.push(`     Largest residuals: ${worst.map((f) => `${f.box} ${r(f.err)}`).join(", ")}.`);
  out.push(`     Boxes outside their state's fitted outline (${misplaced.length} of ${boxes.size}):`);
  for (const m of misplaced) out.push(`       ${esc(m)}`);
  out.push(`-->`);
  out.push(`<backdrop>`);
  out.push(`  <style id="sea" fill="#a9c4d4"/>`);
  out.push(`  <style id="land" fill="#ede3c8"/>`);
  out.push(`  <style id="coast" stroke="#5f87a0" width="1.5"/>`);
  out.push(`  <style id="border" stroke="#8f8a80" width="1.2"/>`);
  out.push(`  <style id="later-border" stroke="#bdb6a6" width="0.8"/>`);
  const [x0, y0, x1, y1] = extent;
  out.push(`  <area name="Sea" style="sea">`);
  out.push(`    <polygon><ring points="${x0},${y0} ${x1},${y0} ${x1},${y1} ${x0},${y1}"/></polygon>`);
  out.push(`  </area>`);
  for (const a of areas) {
    out.push(`  <area name="${esc(a.name)}" style="land">`);
    for (const p of a.rings) {
      out.push(`    <polygon>`);
      for (const ring of p) out.push(`      <ring points="${ring.join(" ")}"/>`);
      out.push(`    </polygon>`);
    }
    out.push(`  </area>`);
  }
  for (const b of borders) out.push(`  <path style="${b.style}" points="${b.l.join(" ")}"/>`);
  out.push(`</backdrop>`);
  return { text: out.join("\n") + "\n", fitLines, worst, misplaced, areas, borders };
}

/** Even-odd point in polygon for planar GeoJSON geometry. */
function planarContains(geometry, [x, y]) {
  const polys = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
  let inside = false;
  for (const p of polys)
    for (const ring of p)
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi] = ring[i];
        const [xj, yj] = ring[j];
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
      }
  return inside;
}

function stateAbbrev() {
  return new Map(
    Object.entries({
      AL: "Alabama", AR: "Arkansas", DC: "District of Columbia", FL: "Florida", GA: "Georgia",
      IL: "Illinois", IN: "Indiana", KY: "Kentucky", LA: "Louisiana", MD: "Maryland",
      MO: "Missouri", MS: "Mississippi", NC: "North Carolina", NJ: "New Jersey", NY: "New York",
      OH: "Ohio", PA: "Pennsylvania", SC: "South Carolina", TN: "Tennessee", VA: "Virginia",
      WV: "West Virginia",
    }),
  );
}

// --- command line ---------------------------------------------------------------------

const args = process.argv.slice(2);
if (args[0] === "--check") {
  // Two runs in fresh processes, into a temporary folder: same bytes, and the same as
  // the committed file.
  const dir = mkdtempSync(join(tmpdir(), "backdrop-"));
  try {
    const files = [join(dir, "a.xml"), join(dir, "b.xml")];
    for (const f of files) execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--out", f]);
    const [a, b] = files.map((f) => readFileSync(f));
    const committed = readFileSync(OUT);
    if (!a.equals(b)) throw new Error("two runs gave different bytes");
    if (!a.equals(committed)) throw new Error(`mods/ahd/backdrop.xml differs from a fresh run (${files[0]} kept)`);
    console.log(`reproducible: two runs and mods/ahd/backdrop.xml are the same ${a.length} bytes`);
    rmSync(dir, { recursive: true });
  } catch (e) {
    console.error(`check failed: ${e.message}`);
    process.exit(1);
  }
} else {
  const out = args[0] === "--out" ? args[1] : OUT;
  const g = generate();
  writeFileSync(out, g.text);
  const n = g.areas.reduce((s, a) => s + a.rings.flat(2).length, 0);
  const m = g.borders.reduce((s, b) => s + b.l.length, 0);
  console.log(`${out}: ${g.areas.length} areas (${n} ring points), ${g.borders.length} paths (${m} points), ${g.text.length} bytes`);
  for (const l of g.fitLines) console.log(l);
  console.log(`largest: ${g.worst.map((f) => `${f.box} ${f.err.toFixed(1)}`).join(", ")}`);
  console.log(`boxes outside their state (${g.misplaced.length}): ${g.misplaced.join("; ")}`);
}

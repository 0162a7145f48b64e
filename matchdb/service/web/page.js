// matchdb's equity explorer. Plain JavaScript over the HTTP API: every number shown is an answer of
// /v1/hands, /v1/equity, /v1/win-rate, /v1/multiway or /v1/info, never computed here. Errors show the API's one-sentence
// `detail`. Parameters are URL-encoded (a range's '+' must travel as %2B).
"use strict";

const RANKS = "AKQJT98765432"; // grid rows and columns: row and column 0 is the ace (as HandTable.grid())
const SUITS = [["s", "\u2660"], ["h", "\u2665"], ["d", "\u2666"], ["c", "\u2663"]];
const CARD = /^[2-9TJQKA][cdhs]$/i;

const $ = (id) => document.getElementById(id);

// -- talking to the API --------------------------------------------------------------------------

function query(params) {
  return Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join("&");
}

async function api(path, params = {}) {
  const search = query(params);
  let response;
  try {
    response = await fetch(search ? `${path}?${search}` : path, { headers: { accept: "application/json" } });
  } catch (failure) {
    throw new Error(`The server could not be reached (${failure.message}); is matchdb serve still running?`);
  }
  let body = null;
  try {
    body = await response.json();
  } catch (failure) {
    body = null;
  }
  if (!response.ok) {
    const detail = body && typeof body.detail === "string" ? body.detail : `The server answered ${response.status} ${response.statusText}.`;
    throw new Error(detail);
  }
  return body;
}

// -- cards and the picker ---------------------------------------------------------------------------

function cardText(card) {
  return card[0].toUpperCase() + card[1].toLowerCase();
}

// The cards of a text made only of cards (with or without separators), or null when it is something else (a range).
function cardsOf(text) {
  const squeezed = text.replace(/[\s,;]+/g, "");
  if (squeezed.length % 2) return null;
  const cards = [];
  for (let i = 0; i < squeezed.length; i += 2) {
    const card = squeezed.slice(i, i + 2);
    if (!CARD.test(card)) return null;
    cards.push(cardText(card));
  }
  return cards;
}

function isHand(text) {
  const cards = cardsOf(text);
  return cards !== null && cards.length === 2;
}

function buildPicker() {
  const picker = $("picker");
  for (const [suit, symbol] of SUITS) {
    const row = document.createElement("div");
    row.className = "picker-row";
    for (const rank of RANKS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `card suit-${suit}`;
      button.dataset.card = rank + suit;
      button.textContent = rank + symbol;
      button.setAttribute("aria-label", rank + suit);
      button.addEventListener("click", () => pick(rank + suit));
      row.appendChild(button);
    }
    picker.appendChild(row);
  }
}

function pick(card) {
  const target = document.querySelector('input[name="pick"]:checked').value;
  const field = $(target);
  const most = target === "board" ? 5 : 2;
  const cards = cardsOf(field.value) || [];
  const at = cards.indexOf(card);
  if (at >= 0) cards.splice(at, 1);
  else if (cards.length < most) cards.push(card);
  else {
    showError(`The ${target === "board" ? "board" : "hero's hand"} has ${most} cards already; click one of them to take it back.`);
    return;
  }
  field.value = cards.join("");
  markPicked();
}

function markPicked() {
  const board = cardsOf($("board").value) || [];
  const hero = cardsOf($("hero").value) || [];
  for (const button of document.querySelectorAll("#picker .card")) {
    button.classList.toggle("on-board", board.includes(button.dataset.card));
    button.classList.toggle("in-hero", hero.includes(button.dataset.card));
  }
}

// -- the question and its answers ---------------------------------------------------------------------

function readForm() {
  return {
    board: $("board").value.trim(),
    hero: $("hero").value.trim(),
    villain: $("villain").value.trim(),
    against: $("against-opponents").checked ? "opponents" : "villain",
    opponents: $("opponents").value.trim(),
  };
}

function fillForm(state) {
  for (const name of ["board", "hero", "villain", "opponents"]) {
    if (state.has(name)) $(name).value = state.get(name);
  }
  if (state.get("against") === "opponents") $("against-opponents").checked = true;
  markPicked();
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function fixed(value) {
  return value === null || value === undefined ? "-" : value.toFixed(6);
}

function setStat(name, value) {
  $(`stat-${name}`).hidden = value === undefined;
  $(`hero-${name}`).textContent = value === undefined ? "" : fixed(value);
}

async function show() {
  const form = readForm();
  showError(null);
  document.body.dataset.state = "busy";
  $("go").disabled = true;
  try {
    let players = 2;
    if (form.against === "opponents") {
      const opponents = Number(form.opponents);
      if (!Number.isInteger(opponents) || opponents < 1 || opponents > 22) {
        throw new Error(`The number of opponents ${JSON.stringify(form.opponents)} is out of range; expected a whole number 1..22.`);
      }
      players = opponents + 1;
    }
    const villain = form.villain || undefined;
    const handsParams = { board: form.board, figure: form.against === "opponents" ? "win-rate" : "equity" };
    if (form.against === "opponents") handsParams.players = players;
    else handsParams.villain = villain;
    const heroHand = isHand(form.hero);
    if (form.hero && !heroHand) handsParams.hero = form.hero; // a range: its equity comes with the grid
    const asked = [api("/v1/hands", handsParams)];
    if (heroHand) {
      asked.push(form.against === "opponents"
        ? api("/v1/win-rate", { hole: form.hero, board: form.board, players })
        : api("/v1/equity", { hole: form.hero, board: form.board, villain }));
    }
    const answers = await Promise.allSettled(asked);
    const failed = answers.find((a) => a.status === "rejected");
    if (failed) throw failed.reason;
    const [hands, hero] = answers.map((a) => a.value);
    drawHero(form, hands, hero, players);
    drawGrid(hands, players, heroHand ? cardsOf(form.hero) : null);
    history.replaceState(null, "", `#${query(form)}`);
    await Promise.all([showMultiway(form, players), showFutureViews(form, players)]);
    document.body.dataset.state = "done";
  } catch (failure) {
    for (const id of ["hero-summary", "grid-section", "multiway"]) $(id).hidden = true;
    for (const section of document.querySelectorAll("section.future")) section.hidden = true;
    showError(failure.message);
    document.body.dataset.state = "error";
  } finally {
    $("go").disabled = false;
    document.body.dataset.shown = String(Number(document.body.dataset.shown) + 1);
  }
}

function drawHero(form, hands, hero, players) {
  const section = $("hero-summary");
  if (!form.hero) {
    section.hidden = true;
    return;
  }
  for (const name of ["equity", "win", "tie", "loss", "win-rate"]) setStat(name, undefined);
  if (hero && "win_rate" in hero) {
    $("hero-title").textContent = `${hero.hole} on ${hero.board}, ${hero.players} players`;
    setStat("win-rate", hero.win_rate);
  } else if (hero) {
    $("hero-title").textContent = `${hero.hole} on ${hero.board} against ${hero.villain}`;
    for (const name of ["equity", "win", "tie", "loss"]) setStat(name, hero[name]);
  } else {
    $("hero-title").textContent = `${hands.hero.hero} against ${hands.hero.villain} on ${hands.hero.board}`;
    setStat("equity", hands.hero.equity);
  }
  section.hidden = false;
}

// The class of a hand written high rank first, as the API writes hands: AhKh -> AKs.
function classOf(hand) {
  if (hand[0] === hand[2]) return hand[0] + hand[2];
  return hand[0] + hand[2] + (hand[1] === hand[3] ? "s" : "o");
}

function className(i, j) {
  if (i === j) return RANKS[i] + RANKS[j];
  return i < j ? `${RANKS[i]}${RANKS[j]}s` : `${RANKS[j]}${RANKS[i]}o`;
}

// Red below the fair share, yellow at it, green above (like matplotlib's RdYlGn in `matchdb plot grid`).
function colour(value, center) {
  if (value === null) return "#d0d0d0";
  const t = value < center ? 0.5 * value / center : 0.5 + 0.5 * (value - center) / (1 - center);
  const stops = [[215, 48, 39], [255, 255, 191], [26, 152, 80]];
  const [a, b, s] = t < 0.5 ? [stops[0], stops[1], t / 0.5] : [stops[1], stops[2], (t - 0.5) / 0.5];
  const mix = a.map((x, k) => Math.round(x + (b[k] - x) * Math.min(Math.max(s, 0), 1)));
  return `rgb(${mix.join(",")})`;
}

let handsByClass = new Map();

function drawGrid(hands, players, heroCards) {
  handsByClass = new Map();
  hands.hands.forEach((hand, k) => {
    const name = classOf(hand);
    if (!handsByClass.has(name)) handsByClass.set(name, []);
    handsByClass.get(name).push([hand, hands.values[k]]);
  });
  const heroClass = heroCards ? classOf(heroCards.sort((x, y) => RANKS.indexOf(x[0]) - RANKS.indexOf(y[0])).join("")) : null;
  const center = hands.figure.startsWith("naive") ? 1 / players : 0.5;
  $("fair-share").textContent = `${(100 * center).toFixed(1)} %`;
  $("grid-title").textContent = `${hands.figure} of every hand on ${hands.board}`;
  const table = $("grid");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement("th"));
  for (const rank of RANKS) {
    const th = document.createElement("th");
    th.textContent = rank;
    head.appendChild(th);
  }
  const body = table.createTBody();
  hands.grid.forEach((row, i) => {
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.textContent = RANKS[i];
    tr.appendChild(th);
    row.forEach((value, j) => {
      const td = tr.insertCell();
      const name = className(i, j);
      td.className = `cell ${i === j ? "pair" : i < j ? "suited" : "offsuit"}`;
      if (name === heroClass) td.classList.add("hero");
      td.dataset.class = name;
      td.dataset.value = value === null ? "" : String(value);
      td.tabIndex = 0;
      td.style.background = colour(value, center);
      const label = document.createElement("span");
      label.className = "name";
      label.textContent = name;
      const number = document.createElement("span");
      number.className = "value";
      number.textContent = value === null ? "-" : (100 * value).toFixed(1);
      td.append(label, number);
      td.setAttribute("aria-label", `${name}: ${fixed(value)}`);
    });
  });
  $("grid-section").hidden = false;
}

function showTip(cell, x, y) {
  const tip = $("tip");
  const value = cell.dataset.value === "" ? null : Number(cell.dataset.value);
  const title = document.createElement("strong");
  title.textContent = `${cell.dataset.class}: ${fixed(value)}`;
  const list = document.createElement("ul");
  for (const [hand, handValue] of handsByClass.get(cell.dataset.class) || []) {
    const item = document.createElement("li");
    item.textContent = `${hand} ${handValue === null ? "touches the board" : fixed(handValue)}`;
    list.appendChild(item);
  }
  tip.replaceChildren(title, list);
  tip.hidden = false;
  tip.style.left = `${Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
  tip.style.top = `${Math.min(y + 14, window.innerHeight - tip.offsetHeight - 8)}px`;
}

function wireTips() {
  const table = $("grid");
  table.addEventListener("mouseover", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell) showTip(cell, event.clientX, event.clientY);
  });
  table.addEventListener("mouseleave", () => { $("tip").hidden = true; });
  table.addEventListener("focusin", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell) {
      const box = cell.getBoundingClientRect();
      showTip(cell, box.right, box.bottom);
    }
  });
  table.addEventListener("focusout", () => { $("tip").hidden = true; });
}

// -- views of endpoints that land later -------------------------------------------------------------------
// Each appears only when the server's /openapi.json lists its endpoint, so the page works with older servers.

const offered = { multiway: false };

// The multiway view (issue 11): against random opponents, the exact multiway equity beside the naive win rate.
async function showMultiway(form, players) {
  const section = $("multiway");
  if (!offered.multiway || form.against !== "opponents" || !form.hero) {
    section.hidden = true;
    return;
  }
  $("mw-error").hidden = true;
  try {
    const answer = await api("/v1/multiway", { hole: form.hero, board: form.board, opponents: players - 1 });
    $("mw-title").textContent = `${answer.hole} on ${answer.board} against ${answer.opponents.join(", ")}`;
    for (const name of ["equity", "win", "tie", "loss"]) $(`mw-${name}`).textContent = fixed(answer[name]);
    $("mw-how").textContent = answer.exact
      ? "exact: every deal counted"
      : `${answer.method}: standard error ${fixed(answer.standard_error)} from ${answer.samples} sampled deals, seed ${answer.seed}`;
    section.querySelector("dl").hidden = false;
  } catch (failure) {
    $("mw-title").textContent = "";
    $("mw-how").textContent = "";
    section.querySelector("dl").hidden = true;
    $("mw-error").textContent = failure.message;
    $("mw-error").hidden = false;
  }
  section.hidden = false;
}

// A section.future is shown when /openapi.json lists its data-endpoint: the endpoint is asked with the
// parameters its OpenAPI entry names (filled from the form: hole, board, villain, players, opponents).
// The hand's distribution over runouts (/v1/distribution) has its own view; any other answer's plain
// fields are listed.

const futureViews = []; // [section, path, parameter names]

async function findOfferedViews() {
  let paths = {};
  try {
    paths = (await api("/openapi.json")).paths || {};
  } catch (failure) {
    return;
  }
  offered.multiway = Boolean(paths["/v1/multiway"] && paths["/v1/multiway"].get);
  for (const section of document.querySelectorAll("section.future")) {
    const path = section.dataset.endpoint;
    if (paths[path] && paths[path].get) {
      futureViews.push([section, path, (paths[path].get.parameters || []).map((p) => p.name)]);
    }
  }
}

async function showFutureViews(form, players) {
  const known = {
    hole: form.hero || undefined,
    board: form.board,
    villain: form.against === "villain" ? form.villain || undefined : undefined,
    players: form.against === "opponents" ? players : undefined,
    opponents: form.against === "opponents" ? players - 1 : undefined,
  };
  for (const [section, path, names] of futureViews) {
    const params = {};
    for (const name of names) if (name in known) params[name] = known[name];
    if (path === "/v1/distribution") {
      await showDistribution(section, params);
      continue;
    }
    try {
      renderGeneric(section, await api(path, params));
    } catch (failure) {
      renderGeneric(section, { error: failure.message });
    }
    section.hidden = false;
  }
}

async function showDistribution(section, params) {
  // a hand on a flop or a turn (a river has nothing left to come)
  if (!params.hole || !params.board || params.board.replace(/[^a-z0-9]/gi, "").length > 8) {
    section.hidden = true;
    return;
  }
  $("dist-error").hidden = true;
  const bars = $("dist-histogram");
  try {
    const answer = await api("/v1/distribution", params);
    $("dist-title").textContent = `${answer.hole} on ${answer.board} against ${answer.villain}: ${answer.runouts} runouts`;
    for (const name of ["ehs", "ehs2", "hs", "ppot", "npot"]) $(`dist-${name}`).textContent = fixed(answer[name]);
    const top = Math.max(...answer.river_histogram, 1e-12);
    bars.replaceChildren(
      ...answer.river_histogram.map((p, b) => {
        const bar = document.createElement("div");
        bar.className = "bar";
        bar.style.height = `${(100 * p) / top}%`;
        bar.title = `${(b / answer.bins).toFixed(2)}-${((b + 1) / answer.bins).toFixed(2)}: ${fixed(p)}`;
        bar.dataset.probability = String(p);
        return bar;
      }),
    );
    section.querySelector("dl").hidden = false;
    bars.hidden = false;
  } catch (failure) {
    section.querySelector("dl").hidden = true;
    bars.hidden = true;
    $("dist-title").textContent = "Distribution over runouts";
    $("dist-error").textContent = failure.message;
    $("dist-error").hidden = false;
  }
  section.hidden = false;
}

function renderGeneric(section, answer) {
  const list = document.createElement("dl");
  for (const [key, value] of Object.entries(answer)) {
    if (value !== null && typeof value === "object") continue; // arrays and objects wait for a proper view
    const term = document.createElement("dt");
    term.textContent = key;
    const description = document.createElement("dd");
    description.textContent = typeof value === "number" && !Number.isInteger(value) ? fixed(value) : String(value);
    list.append(term, description);
  }
  section.querySelector(".future-body").replaceChildren(list);
}

// -- start ----------------------------------------------------------------------------------------------

async function start() {
  buildPicker();
  wireTips();
  for (const name of ["board", "hero"]) $(name).addEventListener("input", markPicked);
  $("villain").addEventListener("focus", () => { $("against-villain").checked = true; });
  $("opponents").addEventListener("focus", () => { $("against-opponents").checked = true; });
  $("question").addEventListener("submit", (event) => {
    event.preventDefault();
    show();
  });
  try {
    const info = await api("/v1/info");
    $("db-info").textContent = `format ${info.format_version}, ${info.tables_built} of ${info.tables} tables`;
  } catch (failure) {
    showError(failure.message);
  }
  await findOfferedViews();
  const state = new URLSearchParams(location.hash.slice(1));
  document.body.dataset.state = "ready";
  if (state.has("board")) {
    fillForm(state);
    await show();
  }
}

start();

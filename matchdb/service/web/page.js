// matchdb's equity explorer. Plain JavaScript over the HTTP API: every number shown is an answer of
// /v1/equity, /v1/multiway, /v1/win-rate, /v1/hands, /v1/distribution, /v1/range or /v1/info, never computed
// here. Errors show the API's one-sentence `detail`. Parameters are URL-encoded (a range's '+' travels as %2B).
"use strict";

const RANKS = "AKQJT98765432"; // grid rows and columns: row and column 0 is the ace (as HandTable.grid())
const SUITS = [["s", "\u2660"], ["h", "\u2665"], ["d", "\u2666"], ["c", "\u2663"]];
const CARD = /^[2-9TJQKA][cdhs]$/i;
const MAX_PLAYERS = 10;
const STOPS = [[215, 48, 39], [255, 255, 191], [26, 152, 80]]; // matplotlib's RdYlGn, as matchdb.plots.grid_colour

const $ = (id) => document.getElementById(id);

// -- talking to the API --------------------------------------------------------------------------

function query(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(one))}`);
    }
  }
  return parts.join("&");
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

function isRandom(text) {
  return !text || text.trim().toLowerCase() === "random";
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
  const field = target === "board" ? $("board") : playerField(active);
  const most = target === "board" ? 5 : 2;
  const cards = cardsOf(field.value) || [];
  const at = cards.indexOf(card);
  if (at >= 0) cards.splice(at, 1);
  else if (cards.length < most) cards.push(card);
  else {
    showError(`The ${target === "board" ? "board" : `hand of player ${active + 1}`} has ${most} cards already; click one of them to take it back.`);
    return;
  }
  field.value = cards.join("");
  markPicked();
  if (target === "player" && cards.length !== 1) rangeChanged(active); // one card is half a hand: nothing to draw yet
}

function markPicked() {
  const board = cardsOf($("board").value) || [];
  const held = playerTexts().flatMap((text) => (isHand(text) ? cardsOf(text) : []));
  for (const button of document.querySelectorAll("#picker .card")) {
    button.classList.toggle("on-board", board.includes(button.dataset.card));
    button.classList.toggle("in-hand", held.includes(button.dataset.card));
  }
}

// -- the players ------------------------------------------------------------------------------------

let active = 1; // the player whose range the grid draws and edits (0 is the hero)

function playerField(index) {
  return $(`player-${index + 1}`);
}

function playerTexts() {
  return [...document.querySelectorAll("#players input.player-text")].map((field) => field.value.trim());
}

function setPlayers(texts) {
  const list = $("players");
  list.replaceChildren();
  texts.forEach((text) => addPlayerRow(text));
  selectPlayer(Math.min(active, texts.length - 1));
}

function addPlayerRow(text = "") {
  const list = $("players");
  const index = list.children.length;
  const item = document.createElement("li");
  item.className = "player";
  const choose = document.createElement("input");
  choose.type = "radio";
  choose.name = "active";
  choose.value = String(index);
  choose.setAttribute("aria-label", `draw player ${index + 1}'s range on the grid`);
  choose.addEventListener("change", () => selectPlayer(index));
  const label = document.createElement("label");
  label.htmlFor = `player-${index + 1}`;
  label.textContent = index === 0 ? "Player 1 (hero)" : `Player ${index + 1}`;
  const field = document.createElement("input");
  field.className = "player-text";
  field.id = `player-${index + 1}`;
  field.placeholder = index === 0 ? "a hand like AhKh, or a range" : "random, a hand or a range like QQ+,AKs";
  field.value = text;
  field.setAttribute("aria-label", `player ${index + 1}: hand or range`);
  field.addEventListener("focus", () => selectPlayer(index));
  field.addEventListener("change", () => { markPicked(); rangeChanged(index); });
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove";
  remove.textContent = "\u00d7";
  remove.setAttribute("aria-label", `remove player ${index + 1}`);
  remove.addEventListener("click", () => removePlayer(index));
  item.append(choose, label, field, remove);
  list.appendChild(item);
  updatePlayerButtons();
}

function removePlayer(index) {
  const texts = playerTexts();
  if (texts.length <= 2) return;
  texts.splice(index, 1);
  if (active >= index && active > 0) active -= 1;
  setPlayers(texts);
  markPicked();
}

function updatePlayerButtons() {
  const count = $("players").children.length;
  $("add-player").disabled = count >= MAX_PLAYERS;
  for (const button of document.querySelectorAll("#players .remove")) button.hidden = count <= 2;
}

function selectPlayer(index) {
  active = index;
  const radio = document.querySelector(`#players input[name="active"][value="${index}"]`);
  if (radio) radio.checked = true;
  for (const item of document.querySelectorAll("#players .player")) item.classList.toggle("active", item === radio?.parentElement);
  $("legend-player").textContent = `player ${index + 1}'s`;
  drawRange();
}

// -- ranges: the selected player's range on the grid ---------------------------------------------------

const rangeCache = new Map(); // range text -> /v1/range's answer (classes and their weights)
const NO_CLASSES = { range: "", combos: 0, fraction: 0, classes: {} }; // an empty field: nothing drawn, a random hand asked

// A range's classes ({class: {weight, combos, hands}}), from the server. An empty field draws no class, so the grid
// builds a range from nothing (the question still takes an empty field as a random hand); "random" draws every class.
async function rangeClasses(text) {
  if (!text) return NO_CLASSES;
  if (isRandom(text)) text = "random";
  if (!rangeCache.has(text)) rangeCache.set(text, await api("/v1/range", { range: text }));
  return rangeCache.get(text);
}

let drawnRange = new Map(); // class -> {weight, hands}: the selected player's range as drawn
let drawnFor = null; // {index, text}: whose range drawnRange is, and of which text

// Draw player `index`'s range on the grid, if that player is still the selected one and its text has not changed
// when the answer comes: a late answer never draws one player's range under another's name (where a click would
// then write it into the other player's field).
async function rangeChanged(index) {
  if (index !== active) return;
  const text = playerField(index).value.trim();
  const current = () => index === active && playerField(index).value.trim() === text;
  try {
    const answer = await rangeClasses(text);
    if (!current()) return;
    drawnRange = new Map(Object.entries(answer.classes));
    drawnFor = { index, text };
    $("range-summary").textContent = rangeSummary(index, answer, text);
    showError(null);
  } catch (failure) {
    if (!current()) return;
    drawnRange = new Map();
    drawnFor = null;
    $("range-summary").textContent = "";
    showError(failure.message);
  }
  paintRange();
}

function drawRange() {
  return rangeChanged(active);
}

function rangeSummary(index, answer, text) {
  if (!text) return `Player ${index + 1}: empty, a random hand; click or drag classes on the grid to build a range`;
  const combos = Number.isInteger(answer.combos) ? String(answer.combos) : answer.combos.toFixed(2);
  return `Player ${index + 1}: ${answer.range}, ${combos} combos, ${(100 * answer.fraction).toFixed(1)} % of all hands`;
}

function weightText(weight) {
  return String(Number(weight.toFixed(4)));
}

// The text of a range drawn as class weights: weight-1 entries first, then one group per other weight.
function rangeText(classes) {
  const groups = new Map();
  const add = (weight, name) => {
    if (!(weight > 0)) return;
    const key = weightText(weight);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(name);
  };
  for (const [name, entry] of orderedClasses(classes)) {
    if (entry.hands) for (const [hand, weight] of Object.entries(entry.hands)) add(weight, hand);
    else add(entry.weight, name);
  }
  const parts = [];
  if (groups.has("1")) parts.push(groups.get("1").join(","));
  for (const [key, names] of groups) if (key !== "1") parts.push(`${key}(${names.join(",")})`);
  return parts.join(",");
}

function orderedClasses(classes) {
  const order = [];
  for (let i = 0; i < 13; i += 1) for (let j = 0; j < 13; j += 1) order.push(className(i, j));
  return order.filter((name) => classes.has(name)).map((name) => [name, classes.get(name)]);
}

// Click and drag: the first cell decides whether the drag adds (at the weight chosen) or removes.
let dragging = null;

function currentWeight() {
  const percent = Number($("weight").value);
  if (!Number.isFinite(percent) || percent < 1 || percent > 100) {
    throw new Error(`The weight ${JSON.stringify($("weight").value)} is out of range; expected a whole number 1..100 (%).`);
  }
  return percent / 100;
}

function applyDrag(cell) {
  const name = cell.dataset.class;
  if (!name || dragging.seen.has(name)) return;
  dragging.seen.add(name);
  if (dragging.adding) drawnRange.set(name, { weight: dragging.weight, combos: combosOf(name), hands: null });
  else drawnRange.delete(name);
  paintCell(cell);
}

function combosOf(name) {
  return name.length === 2 ? 6 : name.endsWith("s") ? 4 : 12;
}

function wireGridEditing() {
  const grid = $("grid");
  grid.addEventListener("pointerdown", (event) => {
    const cell = event.target.closest("td.cell");
    if (!cell) return;
    event.preventDefault();
    if (!drawnFor || drawnFor.index !== active || drawnFor.text !== playerField(active).value.trim()) {
      $("range-summary").textContent = `Player ${active + 1}'s range is still being drawn; click again once it is.`;
      return; // the grid shows another player's range, or an older text: a click now would edit the wrong one
    }
    let weight;
    try {
      weight = currentWeight();
    } catch (failure) {
      showError(failure.message);
      return;
    }
    const entry = drawnRange.get(cell.dataset.class);
    const adding = !(entry && !entry.hands && entry.weight === weight);
    dragging = { adding, weight, index: active, seen: new Set(), started: performance.now() };
    applyDrag(cell);
  });
  grid.addEventListener("pointerover", (event) => {
    const cell = event.target.closest("td.cell");
    if (dragging && cell) applyDrag(cell);
  });
  document.addEventListener("pointerup", () => {
    if (!dragging) return;
    const { started, index } = dragging;
    dragging = null;
    if (index !== active) return; // the selected player changed during the drag: nobody's range is edited
    playerField(index).value = rangeText(drawnRange);
    drawnFor = { index, text: playerField(index).value }; // what is drawn is this text's range: the next click may follow
    markPicked();
    $("percent").value = "0";
    $("percent-value").textContent = "0 %";
    if (answered) show(started); // once a question is shown, each click asks again
    else rangeChanged(index); // before it, a click only builds the range: Show asks
  });
}

// -- the question and its answers ---------------------------------------------------------------------

function readForm() {
  return { board: $("board").value.trim(), players: playerTexts() };
}

function stateOf(form) {
  return { board: form.board, hero: form.players[0], villain: form.players.slice(1) };
}

function fillFromAddress() {
  const state = new URLSearchParams(location.hash.slice(1));
  if (!state.has("board") && !state.has("hero")) return false;
  $("board").value = state.get("board") || "";
  const villains = state.getAll("villain");
  const random = Number(state.get("opponents") || 0);
  for (let k = 0; k < random; k += 1) villains.push("");
  if (!villains.length) villains.push("");
  if (state.has("active")) active = Number(state.get("active")) || 0;
  setPlayers([state.get("hero") || "", ...villains].slice(0, MAX_PLAYERS));
  markPicked();
  return true;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

// An equity or a probability as players read it: a percentage with two decimals (the full float is in data-value).
function percent(value) {
  return value === null || value === undefined ? "-" : `${(100 * value).toFixed(2)} %`;
}

function fixed(value) {
  return value === null || value === undefined ? "-" : value.toFixed(6);
}

function named(text) {
  return isRandom(text) ? "random" : text;
}

// Every player's figures, one promise each. Heads-up: /v1/equity when a hand is involved, else the range's
// exact win, tie and loss from /v1/hands (its hero answer); the other player's figures are the mirror.
// Three or more players: /v1/multiway with each distinct player as the hero against all the others.
function playerQuestions(board, players, grid) {
  const mirror = (answer) => ({
    ...answer, equity: 1 - answer.equity, win: answer.loss ?? null, loss: answer.win ?? null, mirrored: true,
  });
  if (players.length === 2) {
    const [a, b] = players;
    let first;
    if (isHand(a) || isHand(b)) {
      const [hand, other] = isHand(a) ? [a, b] : [b, a];
      const outcome = api("/v1/equity", { hole: hand, board, villain: isRandom(other) ? undefined : other })
        .then((r) => ({ ...r, exact: true, method: "exact" }));
      first = isHand(a) ? outcome : outcome.then(mirror);
    } else if (grid) {
      first = grid.then((hands) => ({ ...hands.hero, exact: true, method: "exact" }));
    } else {
      first = api("/v1/multiway", { hole: named(a), board, villain: [named(b)] });
    }
    return [first, first.then(mirror)];
  }
  const asked = new Map(); // player text -> promise of its figures: players written alike have the same figures
  return players.map((text, i) => {
    const key = named(text);
    if (!asked.has(key)) {
      const others = players.filter((_, k) => k !== i).map(named);
      asked.set(key, api("/v1/multiway", { hole: key, board, villain: others }));
    }
    return asked.get(key);
  });
}

function boardCards(board) {
  const cards = cardsOf(board);
  return cards === null ? -1 : cards.length;
}

async function show(started = performance.now()) {
  const form = readForm();
  const players = form.players;
  const asked = ++questions; // a later question makes the rows of this one stale
  showError(null);
  document.body.dataset.state = "busy";
  document.body.dataset.rows = "0";
  $("go").disabled = true;
  try {
    const count = boardCards(form.board);
    const preflop = form.board === "";
    const hero = players[0];
    let grid = null;
    if (!preflop) {
      const rangeHero = players.length === 2 && !isHand(hero) && !isHand(players[1]) ? named(hero) : undefined;
      grid = players.length === 2
        ? api("/v1/hands", { board: form.board, villain: isRandom(players[1]) ? undefined : players[1], hero: rangeHero })
        : api("/v1/hands", { board: form.board, figure: "win-rate", players: players.length });
    }
    const figures = playerQuestions(form.board, players, grid);
    const naive = isHand(hero) && count >= 3 ? api("/v1/win-rate", { hole: hero, board: form.board, players: players.length }) : null;
    const wantsDistribution = isHand(hero) && players.length === 2 && (count === 3 || count === 4);
    const answers = await Promise.allSettled([figures[0], naive, grid]);
    const failed = answers.find((a) => a.status === "rejected");
    if (failed) throw failed.reason;
    const [heroAnswer, naiveAnswer, hands] = answers.map((a) => a.value);
    drawPlayers(form, heroAnswer, naiveAnswer);
    figures.forEach((promise, i) => promise.then(
      (answer) => { if (asked === questions) fillPlayer(i, answer); },
      (failure) => { if (asked === questions) fillPlayer(i, null, failure.message); },
    ));
    drawGrid(hands, players, preflop);
    document.body.dataset.took = String(Math.round(performance.now() - started)); // a click's grid and equities, drawn
    // then, not to slow the answers above: the selected player's range on the grid, and the distribution
    const drawing = rangeChanged(active);
    const distribution = wantsDistribution
      ? api("/v1/distribution", { hole: hero, board: form.board, villain: isRandom(players[1]) ? undefined : players[1] })
      : null;
    const [, dist] = await Promise.all([drawing, distribution]);
    if (asked !== questions) return;
    drawDistribution(dist, form, count);
    history.replaceState(null, "", `#${query(stateOf(form))}`);
    answered = true;
    document.body.dataset.state = "done";
  } catch (failure) {
    for (const id of ["headline", "distribution"]) $(id).hidden = true;
    drawGrid(null, players, form.board === "", false); // no stale number stays; the range can still be edited
    showError(failure.message);
    document.body.dataset.state = "error";
  } finally {
    $("go").disabled = false;
    document.body.dataset.shown = String(Number(document.body.dataset.shown) + 1);
  }
}

let questions = 0;
let answered = false; // a question has been answered: from then on each click on the grid asks again

function how(answer) {
  if (answer.exact) return "exact";
  if (answer.method === "sample") {
    return `sampled: standard error ${percent(answer.standard_error)} from ${answer.samples} deals, seed ${answer.seed}`;
  }
  return `${answer.method}, an approximation`;
}

function drawPlayers(form, hero, naive) {
  const others = form.players.slice(1).map(named);
  $("headline-title").textContent = `${named(form.players[0])} ${form.board ? `on ${form.board}` : "preflop"} against ${others.join(", ")}`;
  $("headline-equity").textContent = percent(hero.equity);
  $("headline-equity").dataset.value = String(hero.equity);
  $("headline-how").textContent = `(${how(hero)})`;
  $("naive").hidden = !naive;
  if (naive) {
    $("naive-label").textContent = `naive win rate, ${naive.players} players`;
    $("naive-value").textContent = percent(naive.win_rate);
    $("naive-value").dataset.value = String(naive.win_rate);
  }
  const body = $("players-result").tBodies[0];
  body.replaceChildren();
  form.players.forEach((text, i) => {
    const row = body.insertRow();
    row.dataset.player = String(i + 1);
    row.insertCell().textContent = i === 0 ? "1 (hero)" : String(i + 1);
    row.insertCell().textContent = named(text);
    for (const name of ["equity", "win", "tie"]) {
      const cell = row.insertCell();
      cell.className = name;
      cell.dataset.value = "";
    }
    const note = row.insertCell();
    note.className = "how";
    note.textContent = "computing\u2026";
  });
  $("headline").hidden = false;
}

// One player's row: the figures of its own question (equity, win and tie, every kind of player), or why not.
function fillPlayer(index, answer, failure) {
  const row = $("players-result").tBodies[0].rows[index];
  if (!row) return;
  for (const name of ["equity", "win", "tie"]) {
    const cell = row.querySelector(`td.${name}`);
    const value = answer ? answer[name] : null;
    cell.dataset.value = value === null || value === undefined ? "" : String(value);
    cell.textContent = answer ? percent(value) : "";
  }
  const note = row.querySelector("td.how");
  note.textContent = answer ? how(answer) : failure;
  note.classList.toggle("section-error", !answer);
  document.body.dataset.rows = String(Number(document.body.dataset.rows) + 1);
}

// -- the grid ------------------------------------------------------------------------------------------

// The class of a hand written high rank first, as the API writes hands: AhKh -> AKs.
function classOf(hand) {
  if (hand[0] === hand[2]) return hand[0] + hand[2];
  return hand[0] + hand[2] + (hand[1] === hand[3] ? "s" : "o");
}

function className(i, j) {
  if (i === j) return RANKS[i] + RANKS[j];
  return i < j ? `${RANKS[i]}${RANKS[j]}s` : `${RANKS[j]}${RANKS[i]}o`;
}

// Red below the fair share, yellow at it, green above (matplotlib's RdYlGn, as matchdb.plots.grid_colour).
function colour(value, center) {
  if (value === null) return [208, 208, 208];
  let t = value < center ? 0.5 * value / center : 0.5 + 0.5 * (value - center) / (1 - center);
  t = Math.min(Math.max(t, 0), 1);
  const [a, b, s] = t < 0.5 ? [STOPS[0], STOPS[1], t / 0.5] : [STOPS[1], STOPS[2], (t - 0.5) / 0.5];
  return a.map((x, k) => Math.round(x + (b[k] - x) * s));
}

// Black or white, whichever contrasts more with the background (WCAG relative luminance).
function ink(rgb) {
  const linear = rgb.map((c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? "rgb(0, 0, 0)" : "rgb(255, 255, 255)";
}

let handsByClass = new Map();
let center = 0.5;

function drawGrid(hands, players, preflop, asked = true) {
  handsByClass = new Map();
  const values = new Map();
  if (hands) {
    hands.hands.forEach((hand, k) => {
      const name = classOf(hand);
      if (!handsByClass.has(name)) handsByClass.set(name, []);
      handsByClass.get(name).push([hand, hands.values[k]]);
    });
    hands.grid.forEach((row, i) => row.forEach((value, j) => values.set(className(i, j), value)));
  }
  const heroCards = isHand(players[0]) ? cardsOf(players[0]) : null;
  const heroClass = heroCards ? classOf(heroCards.sort((x, y) => RANKS.indexOf(x[0]) - RANKS.indexOf(y[0])).join("")) : null;
  center = hands && hands.figure.startsWith("naive") ? 1 / players.length : 0.5;
  if (hands) {
    $("grid-title").textContent = `${hands.figure} of every hand on ${hands.board}`;
    $("grid-note").textContent = "Each class's mean over its possible hands, in %; suited above the diagonal, offsuit below. Hover a cell for its hands.";
  } else if (asked && preflop) {
    $("grid-title").textContent = "starting hands, preflop";
    $("grid-note").textContent = "Preflop the grid draws the selected player's range only; the equities above are over every board.";
  } else {
    $("grid-title").textContent = "starting hands";
    $("grid-note").textContent = "Click or drag classes to build the selected player's range (suited above the diagonal, offsuit below); Show asks the question.";
  }
  drawLegend(Boolean(hands));
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
  for (let i = 0; i < 13; i += 1) {
    const tr = body.insertRow();
    const th = document.createElement("th");
    th.textContent = RANKS[i];
    tr.appendChild(th);
    for (let j = 0; j < 13; j += 1) {
      const name = className(i, j);
      const value = hands ? values.get(name) : undefined;
      const td = tr.insertCell();
      td.className = `cell ${i === j ? "pair" : i < j ? "suited" : "offsuit"}`;
      if (name === heroClass) td.classList.add("hero");
      td.dataset.class = name;
      td.dataset.value = value === null || value === undefined ? "" : String(value);
      td.tabIndex = 0;
      if (hands) {
        const rgb = colour(value, center);
        td.style.background = `rgb(${rgb.join(", ")})`;
        td.style.color = ink(rgb);
      }
      const label = document.createElement("span");
      label.className = "name";
      label.textContent = name;
      const number = document.createElement("span");
      number.className = "value";
      number.textContent = !hands ? "" : value === null ? "-" : (100 * value).toFixed(1);
      const bar = document.createElement("span");
      bar.className = "weight";
      td.append(label, number, bar);
      td.setAttribute("aria-label", hands ? `${name}: ${percent(value)}` : name);
    }
  }
  paintRange();
  $("grid-section").hidden = false;
}

function drawLegend(withValues) {
  const bar = $("legend-bar");
  const ticks = $("legend-ticks");
  $("legend").classList.toggle("no-values", !withValues);
  bar.dataset.center = String(center);
  const [low, middle, high] = STOPS.map((rgb) => `rgb(${rgb.join(", ")})`);
  bar.style.background = `linear-gradient(to right, ${low} 0%, ${middle} ${100 * center}%, ${high} 100%)`;
  ticks.replaceChildren();
  for (const [at, text] of [[0, "0 %"], [center, `${(100 * center).toFixed(1)} % (fair share)`], [1, "100 %"]]) {
    const tick = document.createElement("span");
    tick.className = "tick";
    tick.style.left = `${100 * at}%`;
    tick.textContent = text;
    ticks.appendChild(tick);
  }
}

function paintCell(cell) {
  const entry = drawnRange.get(cell.dataset.class);
  const weight = entry ? entry.weight : 0;
  cell.classList.toggle("in-range", weight > 0);
  cell.dataset.weight = String(weight);
  const bar = cell.querySelector(".weight");
  if (bar) bar.style.width = `${100 * weight}%`;
}

function paintRange() {
  for (const cell of document.querySelectorAll("#grid td.cell")) paintCell(cell);
}

function showTip(cell, x, y) {
  const tip = $("tip");
  const value = cell.dataset.value === "" ? null : Number(cell.dataset.value);
  const title = document.createElement("strong");
  title.textContent = `${cell.dataset.class}: ${percent(value)}`;
  const list = document.createElement("ul");
  for (const [hand, handValue] of handsByClass.get(cell.dataset.class) || []) {
    const item = document.createElement("li");
    item.textContent = `${hand} ${handValue === null ? "touches the board" : percent(handValue)}`;
    list.appendChild(item);
  }
  const weight = Number(cell.dataset.weight || 0);
  const inRange = document.createElement("p");
  inRange.textContent = weight > 0 ? `in player ${active + 1}'s range, weight ${(100 * weight).toFixed(1)} %` : "";
  tip.replaceChildren(title, list, inRange);
  tip.hidden = false;
  tip.style.left = `${Math.min(x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
  tip.style.top = `${Math.min(y + 14, window.innerHeight - tip.offsetHeight - 8)}px`;
}

function wireTips() {
  const table = $("grid");
  table.addEventListener("mouseover", (event) => {
    const cell = event.target.closest("td.cell");
    if (cell && !dragging) showTip(cell, event.clientX, event.clientY);
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

// -- the distribution over runouts: one hand against one opponent on a flop or turn ---------------------

function drawDistribution(answer, form, count) {
  const section = $("distribution");
  section.hidden = false;
  if (!answer) {
    const hero = form.players[0];
    let why;
    if (!isHand(hero)) why = `the hero is ${isRandom(hero) ? "a random hand" : `the range ${hero}`}`;
    else if (form.players.length > 2) why = `there are ${form.players.length} players`;
    else if (count === 5) why = "the board is complete (a river)";
    else why = "it is preflop";
    $("dist-title").textContent = "Distribution over runouts";
    $("dist-note").textContent = `The distribution over runouts is drawn for one hand against one opponent on a flop or turn; here ${why}.`;
    $("dist-note").hidden = false;
    $("dist-body").hidden = true;
    return;
  }
  $("dist-note").hidden = true;
  $("dist-body").hidden = false;
  $("dist-title").textContent = `${answer.hole} on ${answer.board} against ${answer.villain}: ${answer.runouts} runout${answer.runouts === 1 ? "" : "s"}`;
  for (const name of ["ehs", "hs", "ppot", "npot"]) $(`dist-${name}`).textContent = percent(answer[name]);
  $("dist-ehs2").textContent = fixed(answer.ehs2); // a mean of squared equities: a number, not a chance
  const top = Math.max(...answer.river_histogram, 1e-12);
  $("dist-histogram").replaceChildren(
    ...answer.river_histogram.map((p, b) => {
      const bar = document.createElement("div");
      bar.className = "bar";
      bar.style.height = `${(100 * p) / top}%`;
      bar.title = `${percent(b / answer.bins)} to ${percent((b + 1) / answer.bins)}: ${percent(p)} of the runouts`;
      bar.dataset.probability = String(p);
      return bar;
    }),
  );
}

// -- start ----------------------------------------------------------------------------------------------

function wireRangeTools() {
  $("add-player").addEventListener("click", () => {
    if ($("players").children.length >= MAX_PLAYERS) return;
    addPlayerRow("");
    selectPlayer($("players").children.length - 1);
  });
  $("clear-range").addEventListener("click", () => {
    playerField(active).value = "";
    markPicked();
    rangeChanged(active);
  });
  $("percent").addEventListener("input", () => { $("percent-value").textContent = `${$("percent").value} %`; });
  $("percent").addEventListener("change", () => {
    const percent = Number($("percent").value);
    playerField(active).value = percent > 0 ? `${percent}%` : "";
    show();
  });
}

async function start() {
  buildPicker();
  wireTips();
  wireGridEditing();
  wireRangeTools();
  setPlayers(["", ""]);
  $("board").addEventListener("input", markPicked);
  $("question").addEventListener("submit", (event) => {
    event.preventDefault();
    show();
  });
  window.addEventListener("hashchange", () => {
    if (fillFromAddress()) show();
  });
  try {
    const info = await api("/v1/info");
    $("db-info").textContent = `format ${info.format_version}, ${info.tables_built} of ${info.tables} tables`;
  } catch (failure) {
    showError(failure.message);
  }
  const asked = fillFromAddress();
  drawGrid(null, playerTexts(), $("board").value.trim() === "", false); // the grid builds ranges before any question
  document.body.dataset.state = "ready";
  if (asked) await show();
  else await drawRange();
}

start();

// matchdb's table for a person. Plain JavaScript over /v1/play: every card, stack and figure shown is the server's
// view of the session (it never sends a bot's cards before a showdown, nor the undealt deck). Bots act one step at a
// time with a short visible pause (?pause=ms in the address, 600 by default). Requests, errors and percentages go
// through the pages' shared base (base.js): an error shows the API's one sentence, or what the server answered.

import { $, getJSON, percent as pct, postJSON, setInfo, showError } from "./base.js";

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const params = new URLSearchParams(location.search);
const PAUSE = Math.max(0, Number(params.get("pause") ?? 600) || 0);

let view = null; // the latest view of the session
let busy = false; // a request or the bots' turn is in progress
let clicked = 0; // performance.now() of the last click on an action, for the round trip the page records

// How a sentence says each action of the log: [the person's verb, a bot's verb]; the amount follows ("you bet 10",
// "station bets 10"). The same words as the terminal table's (matchdb.cli.tui).
const VERBS = {
  fold: ["fold", "folds"], check: ["check", "checks"], call: ["call", "calls"], bet: ["bet", "bets"],
  raise: ["raise to", "raises to"], "small blind": ["post the small blind", "posts the small blind"],
  "big blind": ["post the big blind", "posts the big blind"], ante: ["post an ante of", "posts an ante of"],
};

// The name a sentence gives a seat ("you" for the person) and the form of its verbs (0: the person's, 1: a bot's).
function who(seat) {
  return Number(seat) === view.human_seat ? ["you", 0] : [view.names[seat], 1];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- drawing -------------------------------------------------------------------------------------------------

function cardElement(card) {
  const span = document.createElement("span");
  span.className = "card" + (card && "hd".includes(card[1]) ? " red" : "") + (card ? "" : " back");
  span.textContent = card ? card[0] + SUITS[card[1]] : "??";
  if (card) span.dataset.card = card;
  return span;
}

function setCards(element, cards, hidden = 0) {
  element.replaceChildren(...(cards || []).map(cardElement), ...Array.from({ length: hidden }, () => cardElement(null)));
  element.dataset.cards = (cards || []).join(" ");
}

function drawSeats() {
  const ring = $("seats-ring");
  ring.replaceChildren();
  for (const seat of view.seats) {
    const box = document.createElement("div");
    box.className = "seat";
    box.classList.toggle("human", seat.human);
    box.classList.toggle("actor", view.actor === seat.seat);
    box.classList.toggle("folded", seat.folded);
    box.classList.toggle("out", seat.out);
    box.dataset.seat = seat.seat;
    box.dataset.stack = seat.stack;
    box.dataset.bet = seat.bet;
    box.dataset.folded = seat.folded;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = seat.name;
    if (seat.button) {
      const dealer = document.createElement("span");
      dealer.className = "dealer";
      dealer.textContent = "D";
      name.append(dealer);
    }
    const stack = document.createElement("div");
    stack.className = "stack";
    stack.textContent = `${seat.stack} chips`;
    const cards = document.createElement("div");
    cards.className = "cards";
    setCards(cards, seat.cards, seat.cards || !seat.dealt || seat.folded || view.hand_over ? 0 : 2);
    const status = document.createElement("div");
    status.className = "status";
    status.textContent = seat.out ? "out" : seat.folded ? "folded" : seat.all_in ? `all-in ${seat.bet || ""}` : seat.bet ? `bet ${seat.bet}` : "";
    box.append(name, stack, cards, status);
    ring.append(box);
  }
}

function drawActions() {
  const legal = view.your_turn ? view.legal : null;
  $("fold").disabled = !legal || !legal.fold;
  $("check").disabled = !legal || !legal.check;
  $("call").disabled = !legal || !legal.call;
  $("call").textContent = legal && legal.call ? `Call ${legal.call}` : "Call";
  const canRaise = Boolean(legal && legal.raise);
  for (const id of ["raise", "amount", "amount-value", "half-pot", "pot-size", "all-in"]) $(id).disabled = !canRaise;
  $("raise").textContent = legal && legal.bet ? "Bet" : "Raise";
  if (canRaise) {
    for (const id of ["amount", "amount-value"]) {
      $(id).min = legal.min_raise_to;
      $(id).max = legal.max_raise_to;
    }
    const start = legal.presets.half_pot ?? legal.min_raise_to;
    $("amount").value = start;
    $("amount-value").value = start;
  }
  $("next").disabled = !view.hand_over || view.over || view.left;
  $("leave").disabled = view.left;
}

// Whether the person's cards were shown at the last hand's showdown, known while the view's log is that hand's: the
// person's own cards are always sent, shown or not ("you held" them when not at the showdown, or when unknown).
let shownAt = { hand: null, showdown: false };

function personAtShowdown() {
  return view.last.showdown && !view.log.some((entry) => entry.seat === view.human_seat && entry.action === "fold");
}

function drawResult() {
  const last = view.last;
  const box = $("result");
  box.hidden = !last;
  if (!last) return;
  if (view.hand_over && view.hand === last.hand) shownAt = { hand: last.hand, showdown: personAtShowdown() };
  const atShowdown = shownAt.hand === last.hand && shownAt.showdown;
  const lines = [`Hand ${last.hand}: ` + (last.showdown ? "showdown" : "no showdown") + (last.board.length ? `, board ${last.board.join(" ")}` : "")];
  for (const [seat, cards] of Object.entries(last.shown)) {
    const [name, form] = who(seat);
    if (form === 1 && last.showdown) lines.push(`${name} shows ${cards.join(" ")}`); // only a bot still in is sent
    else if (form === 0) lines.push(`${atShowdown ? "you show" : "you held"} ${cards.join(" ")}`);
  }
  lines.push(last.net.map((net, seat) => `${who(seat)[0]} ${net > 0 ? "+" : ""}${net}`).join(", "));
  box.replaceChildren(...lines.map((text) => Object.assign(document.createElement("p"), { textContent: text })));
  box.dataset.hand = last.hand;
  box.dataset.net = last.net.join(" ");
}

function drawCoach() {
  const panel = $("coach-panel");
  panel.hidden = !view.coach_on;
  if (!view.coach_on) return;
  const figures = $("coach-figures");
  const coach = view.coach;
  figures.replaceChildren();
  $("coach-bots").replaceChildren();
  if (coach) {
    const rows = [
      ["equity", `${pct(coach.equity)} (${coach.method}, ${coach.model === "dropout" ? "West's drop-out ranges" : "random hands"})`, coach.equity],
      ["pot odds", `${pct(coach.pot_odds)} (${coach.odds_for})`, coach.pot_odds],
      ["rate of return", coach.rate_of_return === null ? "infinite" : coach.rate_of_return.toFixed(3), coach.rate_of_return],
      ["West's band", `${coach.band}: fold ${pct(coach.west.fold)}, call ${pct(coach.west.call)}, raise ${pct(coach.west.raise)}`, coach.band],
    ];
    for (const [term, text, value] of rows) {
      const dt = Object.assign(document.createElement("dt"), { textContent: term });
      const dd = Object.assign(document.createElement("dd"), { textContent: text });
      dd.dataset.value = value === null ? "" : String(value);
      dd.dataset.figure = term;
      figures.append(dt, dd);
    }
    for (const [name, action] of Object.entries(coach.bots)) {
      $("coach-bots").append(Object.assign(document.createElement("li"), { textContent: `${name}: ${action}` }));
    }
  }
  const review = view.last && view.last.review;
  const box = $("coach-review");
  box.replaceChildren();
  if (review && review.decisions.length) {
    box.append(Object.assign(document.createElement("h2"), { textContent: `Review of hand ${view.last.hand}` }));
    const table = document.createElement("table");
    table.innerHTML = "<tr><th>street</th><th>you</th><th>equity</th><th>pot odds</th><th>RR</th><th>band</th><th>West</th></tr>";
    for (const row of review.decisions) {
      const tr = document.createElement("tr");
      for (const text of [row.street, `${row.action}${row.amount ? " " + row.amount : ""}`, pct(row.equity), pct(row.pot_odds),
        row.rate_of_return === null ? "inf" : row.rate_of_return.toFixed(2), String(row.band),
        `${row.west_likeliest}${row.west_agrees ? " (agrees)" : ""}`]) {
        tr.append(Object.assign(document.createElement("td"), { textContent: text }));
      }
      table.append(tr);
    }
    box.append(table);
  }
}

function drawLog() {
  $("log").replaceChildren(...view.log.map((entry) => {
    const [name, form] = who(entry.seat);
    const verb = (VERBS[entry.action] || [entry.action, entry.action])[form];
    return Object.assign(document.createElement("li"), {
      textContent: `${entry.street}: ${name} ${verb}${entry.amount ? " " + entry.amount : ""}`,
    });
  }));
}

function draw() {
  $("setup").hidden = true;
  $("table").hidden = false;
  drawSeats();
  setCards($("board"), view.board);
  $("pot").textContent = view.pot;
  $("pot").dataset.pot = view.pot;
  $("street").textContent = view.street;
  $("hand-number").textContent = view.hand;
  $("blinds").textContent = `${view.blinds.small_blind}/${view.blinds.big_blind}` + (view.blinds.ante ? ` ante ${view.blinds.ante}` : "");
  const failures = view.bot_errors.length ? ` · a bot failed and folded: ${view.bot_errors.at(-1).name} (${view.bot_errors.at(-1).error})` : "";
  setInfo(`session ${view.id} · ${view.game} · hands played ${view.hands_played}${failures}`);
  drawActions();
  drawResult();
  drawCoach();
  drawLog();
  document.body.dataset.hand = view.hand;
  document.body.dataset.state = view.left ? "left" : view.over ? "over" : view.hand_over ? "hand-over"
    : view.your_turn ? "your-turn" : "bots";
}

// -- playing -------------------------------------------------------------------------------------------------

async function bots() {
  while (view && !view.hand_over && !view.your_turn && view.actor !== null) {
    document.body.dataset.state = "bots";
    await sleep(PAUSE);
    const answer = await postJSON(`/v1/play/${view.id}/step`);
    view = answer.view;
    draw();
  }
}

async function run(task) {
  if (busy) return;
  busy = true;
  document.body.dataset.busy = "1"; // at once, within the click: a reader never sees the old state as settled
  showError(null);
  try {
    view = await task();
    draw();
    if (clicked) {
      window.matchdbRoundTrip = performance.now() - clicked; // click to drawn answer, in ms (the tests read it)
      clicked = 0;
    }
    await bots();
  } catch (error) {
    showError(error);
  } finally {
    busy = false;
    document.body.dataset.busy = "0";
  }
}

function act(kind, amount) {
  clicked = performance.now();
  run(() => postJSON(`/v1/play/${view.id}/act`, amount === undefined ? { kind } : { kind, amount }));
}

function raiseAmount() {
  return Number($("amount-value").value);
}

function settings() {
  const number = (id) => Number($(id).value);
  const out = {
    seats: number("seats"), opponents: $("opponents").value, game: $("game").value, stack: number("stack"),
    small_blind: number("small-blind"), big_blind: number("big-blind"), coach: $("coach").checked,
    coach_model: $("coach-model").value,
  };
  if ($("seed").value !== "") out.seed = number("seed");
  return out;
}

function wire() {
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    run(async () => {
      const answer = await postJSON("/v1/play", settings());
      history.replaceState(null, "", `${location.pathname}${location.search}#${answer.id}`);
      return answer;
    });
  });
  $("fold").addEventListener("click", () => act("fold"));
  $("check").addEventListener("click", () => act("check"));
  $("call").addEventListener("click", () => act("call"));
  $("raise").addEventListener("click", () => act(view.legal && view.legal.bet ? "bet" : "raise", raiseAmount()));
  $("amount").addEventListener("input", () => { $("amount-value").value = $("amount").value; });
  $("amount-value").addEventListener("input", () => { $("amount").value = $("amount-value").value; });
  for (const [id, key] of [["half-pot", "half_pot"], ["pot-size", "pot"], ["all-in", "all_in"]]) {
    $(id).addEventListener("click", () => {
      if (!view || !view.legal) return;
      $("amount").value = view.legal.presets[key];
      $("amount-value").value = view.legal.presets[key];
    });
  }
  $("next").addEventListener("click", () => {
    clicked = performance.now();
    run(() => postJSON(`/v1/play/${view.id}/next`));
  });
  $("leave").addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    try {
      const summary = await postJSON(`/v1/play/${view.id}/leave`);
      showSummary(summary);
      document.body.dataset.state = "left";
    } catch (error) {
      showError(error);
    } finally {
      busy = false;
    }
  });
}

function showSummary(summary) {
  const box = $("summary");
  box.hidden = false;
  const rows = summary.names.map((name, seat) => {
    const stats = summary.report && summary.report.players[name];
    const cells = [name, summary.stacks[seat], summary.net[seat], summary.net_big_blinds[seat].toFixed(1)];
    if (summary.report) {
      cells.push(stats ? pct(stats.vpip) : "-", stats ? pct(stats.pfr) : "-",
        stats && stats.aggression !== null ? stats.aggression.toFixed(2) : "-",
        stats && stats.adjusted_bb_per_100 !== null ? stats.adjusted_bb_per_100.toFixed(1) : "-");
    }
    return cells;
  });
  const head = ["player", "stack", "net", "net bb"].concat(summary.report ? ["VPIP", "PFR", "aggression", "all-in adjusted bb/100"] : []);
  const table = document.createElement("table");
  for (const cells of [head, ...rows]) {
    const tr = document.createElement("tr");
    for (const text of cells) tr.append(Object.assign(document.createElement(cells === head ? "th" : "td"), { textContent: String(text) }));
    table.append(tr);
  }
  box.replaceChildren(Object.assign(document.createElement("h2"), { textContent: `Session over: ${summary.hands} hands (resume at #${summary.id})` }), table);
}

document.body.dataset.state = "setup";
wire();
if (location.hash.length > 1) {
  run(() => getJSON(`/v1/play/${encodeURIComponent(location.hash.slice(1))}`));
}

// matchdb's hand replayer: reads hand histories through POST /v1/replayer and steps through one hand's frames.
// Every number shown is the server's answer; this script only draws them.
"use strict";

const $ = (id) => document.getElementById(id);
let answer = null; // the last answer of /v1/replayer
let frame = 0; // the frame shown
let sourceName = "pasted text"; // what the hands are labelled by: the file's name, once one is chosen

// What each replay status means (matchdb.hands.replayer): the engine's payments against the history's winnings.
const STATUS_NOTES = {
  identical: () => "identical: the engine pays every player what the history records.",
  raked: (replay) => `raked: the history pays ${replay.rake} less than the engine, the site's rake; the engine's payments are shown.`,
  unrecorded: () => "unrecorded: the history records no winnings (PokerStars' files often list none), so only the rules " +
    "were checked (every action legal, the hand ending where the history ends); the payments shown are the engine's.",
};

function setState(state) {
  document.body.dataset.state = state;
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  setState("error");
}

async function ask(hand) {
  setState("loading");
  $("error").hidden = true;
  $("go").disabled = true;
  try {
    const response = await fetch("/v1/replayer", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        text: $("text").value, hand, name: sourceName, opponent_range: $("opponent-range").value.trim() || "random",
      }),
    });
    const data = await response.json();
    if (!response.ok) {
      showError(typeof data.detail === "string" ? data.detail : `The server answered ${response.status}.`);
      return;
    }
    answer = data;
    drawChoice(hand);
    show(0);
    setState("done");
  } catch (error) {
    showError(`The server could not be reached (${error.message}).`);
  } finally {
    $("go").disabled = false;
  }
}

function drawChoice(hand) {
  const select = $("hand-choice");
  select.replaceChildren(...answer.labels.map((label, k) => new Option(label, String(k), false, k === hand)));
  const refused = answer.refused ? `; ${answer.refused} refused (${answer.refusals[0]}${answer.refused > 1 ? " ..." : ""})` : "";
  const listed = answer.labels.length < answer.count ? ` (the first ${answer.labels.length} listed)` : "";
  $("read-summary").textContent = `${answer.count} hands read${listed}${refused}.`;
  $("read-summary").hidden = false;
  $("hand").hidden = false;
}

function cards(text) {
  const span = document.createElement("span");
  span.className = "cards";
  for (let k = 0; k + 1 < text.length; k += 2) {
    const card = document.createElement("span");
    card.className = `suit-${text[k + 1]}`;
    card.textContent = text.slice(k, k + 2);
    span.append(card);
  }
  return span;
}

function cell(text, value, numeric) {
  const td = document.createElement("td");
  if (numeric) td.className = "num";
  if (value !== undefined && value !== null) td.dataset.value = String(value);
  if (text instanceof Node) td.append(text);
  else td.textContent = text;
  return td;
}

function show(k) {
  const replay = answer.replay;
  frame = Math.max(0, Math.min(k, replay.frames.length - 1));
  const f = replay.frames[frame];
  document.body.dataset.frame = String(frame);
  $("frame-text").textContent = `${f.street}: ${f.text}`;
  $("board").replaceChildren(f.board ? cards(f.board) : document.createTextNode("none yet"));
  $("pot").textContent = String(f.pot);
  $("pot").dataset.value = String(f.pot);
  $("step-count").textContent = `step ${frame + 1} of ${replay.frames.length}`;
  const rows = replay.players.map((name, seat) => {
    const tr = document.createElement("tr");
    tr.dataset.seat = String(seat);
    if (!f.in_hand[seat]) tr.classList.add("folded");
    if (f.seat === seat) tr.classList.add("acting");
    const hole = replay.holes[seat];
    const equity = f.equity[seat];
    const error = f.standard_error[seat];
    let shown = "";
    if (equity !== null) shown = `${(100 * equity).toFixed(2)} %` + (error > 0 ? ` ± ${(100 * error).toFixed(2)} (sampled)` : "");
    else if (f.in_hand[seat]) shown = hole ? "" : "hidden";
    tr.append(
      cell(`p${seat + 1} ${name}`),
      cell(hole ? cards(hole) : "hidden"),
      cell(String(f.stacks[seat]), f.stacks[seat], true),
      cell(f.bets[seat] ? String(f.bets[seat]) : "", f.bets[seat], true),
      cell(shown, equity, true),
    );
    return tr;
  });
  $("seats").tBodies[0].replaceChildren(...rows);
  const notes = [`${replay.hand}`, `status: ${replay.status}`];
  if (replay.rake) notes.push(`rake ${replay.rake}`);
  $("hand-note").textContent = notes.join(" · ");
  const explain = STATUS_NOTES[replay.status];
  $("status-note").textContent = explain ? explain(replay) : "";
  $("first").disabled = $("prev").disabled = frame === 0;
  $("last").disabled = $("next").disabled = $("next-street").disabled = frame === replay.frames.length - 1;
}

function nextStreet() {
  const frames = answer.replay.frames;
  const street = frames[frame].street;
  let k = frame + 1;
  while (k < frames.length - 1 && frames[k].street === street) k += 1;
  show(k);
}

$("source").addEventListener("submit", (event) => {
  event.preventDefault();
  ask(0);
});
$("file").addEventListener("change", async () => {
  const file = $("file").files[0];
  if (file) {
    $("text").value = await file.text();
    sourceName = file.name;
    ask(0);
  }
});
$("text").addEventListener("input", () => { sourceName = "pasted text"; });
$("hand-choice").addEventListener("change", () => ask(Number($("hand-choice").value)));
$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(frame - 1));
$("next").addEventListener("click", () => show(frame + 1));
$("last").addEventListener("click", () => show(answer.replay.frames.length - 1));
$("next-street").addEventListener("click", nextStreet);
document.addEventListener("keydown", (event) => {
  if (!answer || event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT") return;
  if (event.key === "ArrowRight") show(frame + 1);
  if (event.key === "ArrowLeft") show(frame - 1);
});

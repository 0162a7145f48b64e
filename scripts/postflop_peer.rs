//! postflop_peer -- a small command-line driver for the PEER solver b-inary/postflop-solver (Rust,
//! AGPL-3.0), used by matchdb's benchmark (scripts/bench_solver.py, `--peer PATH`) to solve the same spots
//! and print its figures beside ours. It calls only the peer's public API (a `PostFlopGame` from a
//! `CardConfig` and an `ActionTree`, `solve_step`, `compute_exploitability`, `finalize`, `equity`,
//! `expected_values`, `strategy`, `normalized_weights`). None of the peer's code is in matchdb.
//!
//! Build (see ../shared/DESIGN.md, section 6: the peer's source, its Cargo.toml edited for Debian's
//! crates, and a .cargo/config.toml pointing crates-io at /usr/share/cargo/registry), then beside this file
//! a Cargo.toml:
//!
//!     [package]                    name = "postflop_peer", version = "0.1.0", edition = "2021"
//!     [[bin]]                      name = "postflop_peer", path = "postflop_peer.rs"
//!     [dependencies]               postflop-solver = { path = "PATH/TO/postflop-solver",
//!                                      default-features = false, features = ["rayon"] }, rayon = "1.6"
//!
//!     RUSTFLAGS="--cap-lints warn -C target-cpu=native" cargo build --release
//!
//! The peer's rules, written out (tree, DCFR, exploitability, equity, EV): docs/guide/solver.md,
//! "Against postflop-solver".
//!
//!
//! Usage (one spot per run; prints ONE JSON line on stdout):
//!   postflop_peer --oop RANGE --ip RANGE --board Td9d6hQc --pot 200 --stack 900
//!       --bet "60%, e, a" --raise "2.5x"
//!       [--flop-bet S] [--turn-bet S] [--river-bet S]
//!       [--flop-raise S] [--turn-raise S] [--river-raise S]
//!       [--donk S] [--turn-donk S] [--river-donk S]
//!       [--add-allin-threshold 1.5] [--force-allin-threshold 0.15] [--merging-threshold 0.1]
//!       [--rake-rate R --rake-cap C] [--target-pct 0.5] [--max-iterations 1000]
//!       [--compress] [--threads N] [--hands-out FILE] [--lib-solve] [--progress]
//!       [--dump-tree FILE [--tree-only]]
//!
//! Note the peer's rake rule: rake = min(pot * rake_rate, rake_cap), so a rake_cap of 0
//! (the default here) means NO rake even when --rake-rate is given; pass a large cap for
//! "uncapped".
//!
//! `--dump-tree FILE` writes the peer's abstract ActionTree (one JSON object per line:
//! every decision node with its action line, player to act, available actions and total
//! bets so far, and every terminal) so that another tree builder can be diffed against
//! it; "|" in a line marks the deal of the next street. `--tree-only` stops after that.
//!
//! Bet/raise strings are parsed by the peer's own `BetSizeOptions::try_from((bet, raise))`
//! and donk strings by `DonkSizeOptions::try_from(donk)`; the same sizes are used for
//! both players. `--bet/--raise` apply to every street unless a per-street one is given.
//! `--donk` sets both turn and river donk sizes unless `--turn-donk/--river-donk` are
//! given; with no donk option the donk sizes are `None` (OOP uses its normal bet sizes).
//!
//! Stopping rule: by default the driver runs exactly the loop of the peer's
//! `solve()` (src/solver.rs:43-105) through the public `solve_step`,
//! `compute_exploitability` and `finalize`, so that the number of iterations actually
//! run can be reported: exploitability is computed before the first iteration and
//! after every iteration t with (t+1) % 10 == 0 or t+1 == max; the loop stops at the
//! top of an iteration once exploitability <= target. `--lib-solve` calls the
//! library's `solve()` itself instead (iterations then reported as null).
//! Target exploitability = starting_pot * target_pct / 100 (the way examples/basic.rs
//! sets 0.5 % of the pot).

use postflop_solver::*;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Instant;

const FLAGS: &[&str] = &["--compress", "--lib-solve", "--progress", "--help", "--tree-only"];
const OPTIONS: &[&str] = &[
    "--oop",
    "--ip",
    "--board",
    "--pot",
    "--stack",
    "--bet",
    "--raise",
    "--flop-bet",
    "--turn-bet",
    "--river-bet",
    "--flop-raise",
    "--turn-raise",
    "--river-raise",
    "--donk",
    "--turn-donk",
    "--river-donk",
    "--add-allin-threshold",
    "--force-allin-threshold",
    "--merging-threshold",
    "--rake-rate",
    "--rake-cap",
    "--target-pct",
    "--max-iterations",
    "--threads",
    "--hands-out",
    "--dump-tree",
];

fn die(msg: &str) -> ! {
    eprintln!("postflop_peer: {msg}");
    std::process::exit(2);
}

fn usage() -> ! {
    eprintln!(
        "usage: postflop_peer --oop RANGE --ip RANGE --board CARDS --pot N --stack N \
         --bet SIZES [--raise SIZES] [--{{flop,turn,river}}-{{bet,raise}} SIZES] \
         [--donk S] [--turn-donk S] [--river-donk S] [--add-allin-threshold X] \
         [--force-allin-threshold X] [--merging-threshold X] [--rake-rate R --rake-cap C] \
         [--target-pct P] [--max-iterations N] [--compress] [--threads N] \
         [--hands-out FILE] [--lib-solve] [--progress] [--dump-tree FILE [--tree-only]]"
    );
    std::process::exit(2);
}

struct Args {
    opts: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    fn parse() -> Self {
        let mut opts = HashMap::new();
        let mut flags = Vec::new();
        let mut it = std::env::args().skip(1);
        while let Some(a) = it.next() {
            // accept --name=value too
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (a.clone(), None),
            };
            if FLAGS.contains(&name.as_str()) {
                if name == "--help" {
                    usage();
                }
                flags.push(name);
            } else if OPTIONS.contains(&name.as_str()) {
                let v = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .unwrap_or_else(|| die(&format!("missing value for {name}"))),
                };
                opts.insert(name, v);
            } else {
                die(&format!("unknown argument: {a}"));
            }
        }
        Args { opts, flags }
    }
    fn get(&self, k: &str) -> Option<&str> {
        self.opts.get(k).map(|s| s.as_str())
    }
    fn req(&self, k: &str) -> &str {
        self.get(k).unwrap_or_else(|| die(&format!("{k} is required")))
    }
    fn flag(&self, k: &str) -> bool {
        self.flags.iter().any(|f| f == k)
    }
    fn num<T: std::str::FromStr>(&self, k: &str, default: T) -> T {
        match self.get(k) {
            None => default,
            Some(s) => s
                .trim()
                .parse()
                .unwrap_or_else(|_| die(&format!("bad number for {k}: {s}"))),
        }
    }
}

// ---------- tiny JSON helpers (no serde here) ----------

fn jstr(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn jnum(x: f64) -> String {
    if x.is_finite() {
        // shortest round-trip representation of the value
        format!("{x}")
    } else {
        "null".to_string()
    }
}

fn jf32(x: f32) -> String {
    if x.is_finite() {
        format!("{x}") // shortest repr that round-trips as f32
    } else {
        "null".to_string()
    }
}

fn jarr<I: IntoIterator<Item = String>>(items: I) -> String {
    let v: Vec<String> = items.into_iter().collect();
    format!("[{}]", v.join(","))
}

fn peak_rss_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("VmHWM:") {
            let kb: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            return Some(kb * 1024);
        }
    }
    None
}

/// CPU seconds (user + system, all threads) of this process so far, from /proc/self/stat
/// (USER_HZ = 100 on Linux); None where /proc is not available.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // fields after "(comm)": state=0 ... utime=11, stime=12
    let ut: f64 = f.get(11)?.parse().ok()?;
    let st: f64 = f.get(12)?.parse().ok()?;
    Some((ut + st) / 100.0)
}

/// Walks the abstract ActionTree depth-first (public API only) and writes JSON lines.
fn dump_tree(
    tree: &mut ActionTree,
    line: &mut Vec<String>,
    player: usize,
    out: &mut String,
    counts: &mut [u64; 2],
) {
    let tb = tree.total_bet_amount();
    let jline = jarr(line.iter().map(|a| jstr(a)));
    if tree.is_terminal_node() {
        let kind = if line.last().map_or(false, |a| a == "Fold") {
            "fold"
        } else {
            "showdown"
        };
        let _ = writeln!(
            out,
            "{{\"line\":{jline},\"terminal\":{},\"total_bet\":[{},{}]}}",
            jstr(kind),
            tb[0],
            tb[1]
        );
        counts[1] += 1;
        return;
    }
    let actions = tree.available_actions().to_vec();
    let _ = writeln!(
        out,
        "{{\"line\":{jline},\"player\":{},\"actions\":{},\"total_bet\":[{},{}]}}",
        jstr(if player == 0 { "oop" } else { "ip" }),
        jarr(actions.iter().map(|a| jstr(&format!("{a:?}")))),
        tb[0],
        tb[1]
    );
    counts[0] += 1;
    for a in actions {
        tree.play(a).unwrap();
        line.push(format!("{a:?}"));
        let dealt = tree.is_chance_node();
        if dealt {
            line.push("|".to_string());
        }
        let next = if dealt { 0 } else { player ^ 1 };
        dump_tree(tree, line, next, out, counts);
        if dealt {
            line.pop();
        }
        line.pop();
        tree.undo().unwrap();
    }
}

fn parse_board(s: &str) -> ([Card; 3], Card, Card, BoardState) {
    let s: String = s.chars().filter(|c| !c.is_whitespace() && *c != ',').collect();
    if s.len() != 6 && s.len() != 8 && s.len() != 10 {
        die(&format!("board must have 3, 4 or 5 cards: {s}"));
    }
    let flop = flop_from_str(&s[0..6]).unwrap_or_else(|e| die(&format!("bad flop: {e}")));
    let turn = if s.len() >= 8 {
        card_from_str(&s[6..8]).unwrap_or_else(|e| die(&format!("bad turn: {e}")))
    } else {
        NOT_DEALT
    };
    let river = if s.len() == 10 {
        card_from_str(&s[8..10]).unwrap_or_else(|e| die(&format!("bad river: {e}")))
    } else {
        NOT_DEALT
    };
    let state = match s.len() {
        6 => BoardState::Flop,
        8 => BoardState::Turn,
        _ => BoardState::River,
    };
    (flop, turn, river, state)
}

fn main() {
    let t_total = Instant::now();
    let args = Args::parse();

    // ---- threads (rayon global pool; must be set before the peer touches rayon) ----
    if let Some(n) = args.get("--threads") {
        let n: usize = n
            .trim()
            .parse()
            .unwrap_or_else(|_| die("bad number for --threads"));
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .unwrap_or_else(|e| die(&format!("cannot set threads: {e}")));
    }
    let threads = rayon::current_num_threads();

    // ---- spot ----
    let oop_str = args.req("--oop");
    let ip_str = args.req("--ip");
    let oop_range: Range = oop_str
        .parse()
        .unwrap_or_else(|e| die(&format!("bad OOP range: {e}")));
    let ip_range: Range = ip_str
        .parse()
        .unwrap_or_else(|e| die(&format!("bad IP range: {e}")));
    let board_str = args.req("--board");
    let (flop, turn, river, initial_state) = parse_board(board_str);
    let pot: i32 = args.num("--pot", -1);
    let stack: i32 = args.num("--stack", -1);
    if pot <= 0 || stack <= 0 {
        die("--pot and --stack are required and must be positive");
    }

    let bet_all = args.req("--bet");
    let raise_all = args.get("--raise").unwrap_or("");
    let sizes = |street: &str| -> (String, String, BetSizeOptions) {
        let b = args
            .get(&format!("--{street}-bet"))
            .unwrap_or(bet_all)
            .to_string();
        let r = args
            .get(&format!("--{street}-raise"))
            .unwrap_or(raise_all)
            .to_string();
        let o = BetSizeOptions::try_from((b.as_str(), r.as_str()))
            .unwrap_or_else(|e| die(&format!("bad {street} bet/raise sizes: {e}")));
        (b, r, o)
    };
    let (flop_b, flop_r, flop_sizes) = sizes("flop");
    let (turn_b, turn_r, turn_sizes) = sizes("turn");
    let (river_b, river_r, river_sizes) = sizes("river");
    let donk_for = |street: &str| -> Option<(String, DonkSizeOptions)> {
        let s = args
            .get(&format!("--{street}-donk"))
            .or(args.get("--donk"))?;
        let o = DonkSizeOptions::try_from(s)
            .unwrap_or_else(|e| die(&format!("bad {street} donk sizes: {e}")));
        Some((s.to_string(), o))
    };
    let turn_donk = donk_for("turn");
    let river_donk = donk_for("river");

    let add_allin_threshold: f64 = args.num("--add-allin-threshold", 1.5);
    let force_allin_threshold: f64 = args.num("--force-allin-threshold", 0.15);
    let merging_threshold: f64 = args.num("--merging-threshold", 0.1);
    let rake_rate: f64 = args.num("--rake-rate", 0.0);
    let rake_cap: f64 = args.num("--rake-cap", 0.0);
    let target_pct: f64 = args.num("--target-pct", 0.5);
    let max_iterations: u32 = args.num("--max-iterations", 1000);
    let compress = args.flag("--compress");
    let lib_solve = args.flag("--lib-solve");
    let progress = args.flag("--progress");

    let card_config = CardConfig {
        range: [oop_range, ip_range],
        flop,
        turn,
        river,
    };
    let tree_config = TreeConfig {
        initial_state,
        starting_pot: pot,
        effective_stack: stack,
        rake_rate,
        rake_cap,
        flop_bet_sizes: [flop_sizes.clone(), flop_sizes],
        turn_bet_sizes: [turn_sizes.clone(), turn_sizes],
        river_bet_sizes: [river_sizes.clone(), river_sizes],
        turn_donk_sizes: turn_donk.as_ref().map(|d| d.1.clone()),
        river_donk_sizes: river_donk.as_ref().map(|d| d.1.clone()),
        add_allin_threshold,
        force_allin_threshold,
        merging_threshold,
    };

    // ---- build + allocate ----
    let t_build = Instant::now();
    let mut action_tree =
        ActionTree::new(tree_config).unwrap_or_else(|e| die(&format!("tree config: {e}")));
    let mut tree_counts = [0u64; 2];
    if let Some(path) = args.get("--dump-tree") {
        let mut out = String::new();
        dump_tree(&mut action_tree, &mut Vec::new(), 0, &mut out, &mut tree_counts);
        action_tree.back_to_root();
        std::fs::write(path, out).unwrap_or_else(|e| die(&format!("cannot write {path}: {e}")));
        if args.flag("--tree-only") {
            println!(
                "{{\"solver\":\"postflop-solver\",\"tree_decision_nodes\":{},\"tree_terminals\":{}}}",
                tree_counts[0], tree_counts[1]
            );
            return;
        }
    }
    let mut game = PostFlopGame::with_config(card_config, action_tree)
        .unwrap_or_else(|e| die(&format!("game config: {e}")));
    let build_s = t_build.elapsed().as_secs_f64();
    let (mem_f32, mem_i16) = game.memory_usage();
    let t_alloc = Instant::now();
    game.allocate_memory(compress);
    let alloc_s = t_alloc.elapsed().as_secs_f64();

    // ---- solve ----
    let target = game.tree_config().starting_pot as f32 * (target_pct / 100.0) as f32;
    let cpu_before_solve = cpu_seconds();
    let t_solve = Instant::now();
    let (exploitability, iterations): (f32, Option<u32>) = if lib_solve {
        let e = solve(&mut game, max_iterations, target, progress);
        (e, None)
    } else {
        // exactly the loop of postflop_solver::solve (src/solver.rs:57-104)
        let mut expl = compute_exploitability(&game);
        let mut iters = 0u32;
        for t in 0..max_iterations {
            if expl <= target {
                break;
            }
            solve_step(&game, t);
            iters = t + 1;
            if (t + 1) % 10 == 0 || t + 1 == max_iterations {
                expl = compute_exploitability(&game);
            }
            if progress {
                eprint!("\riteration: {} / {} (exploitability = {:.4e})", t + 1, max_iterations, expl);
            }
        }
        if progress {
            eprintln!();
        }
        finalize(&mut game);
        (expl, Some(iters))
    };
    let solve_s = t_solve.elapsed().as_secs_f64();
    let cpu_solve = match (cpu_before_solve, cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };

    // ---- root figures ----
    game.back_to_root();
    game.cache_normalized_weights();
    let eq = [game.equity(0), game.equity(1)];
    let ev = [game.expected_values(0), game.expected_values(1)];
    let nw = [
        game.normalized_weights(0).to_vec(),
        game.normalized_weights(1).to_vec(),
    ];
    let w = [game.weights(0).to_vec(), game.weights(1).to_vec()];
    let oop_equity = compute_average(&eq[0], &nw[0]);
    let ip_equity = compute_average(&eq[1], &nw[1]);
    let oop_ev = compute_average(&ev[0], &nw[0]);
    let ip_ev = compute_average(&ev[1], &nw[1]);

    let root_player = game.current_player();
    let actions: Vec<String> = game
        .available_actions()
        .iter()
        .map(|a| format!("{a:?}"))
        .collect();
    let strategy = game.strategy();
    let nh = game.private_cards(root_player).len();
    let na = actions.len();
    let rw = &nw[root_player];
    let wsum: f64 = rw.iter().map(|&x| x as f64).sum();
    let freqs: Vec<f64> = (0..na)
        .map(|a| {
            let s: f64 = (0..nh)
                .map(|i| strategy[a * nh + i] as f64 * rw[i] as f64)
                .sum();
            s / wsum
        })
        .collect();

    // ---- per-hand dump ----
    if let Some(path) = args.get("--hands-out") {
        let mut o = String::new();
        let _ = write!(
            o,
            "{{\"root_player\":{},\"actions\":{},\"note\":{},",
            jstr(if root_player == 0 { "oop" } else { "ip" }),
            jarr(actions.iter().map(|a| jstr(a))),
            jstr("strategy[k] is the probability of actions[k] for the root player (OOP); \
                  weight = range weight, normalized_weight = weight x compatible opponent weight; \
                  equity in [0,1], ev in chips (OOP EV + IP EV = pot without rake)")
        );
        for p in 0..2 {
            let names = holes_to_strings(game.private_cards(p)).unwrap();
            let key = if p == 0 { "oop" } else { "ip" };
            let _ = write!(o, "\"{key}\":[");
            for (i, name) in names.iter().enumerate() {
                if i > 0 {
                    o.push(',');
                }
                let _ = write!(
                    o,
                    "{{\"hand\":{},\"weight\":{},\"normalized_weight\":{},\"equity\":{},\"ev\":{}",
                    jstr(name),
                    jf32(w[p][i]),
                    jf32(nw[p][i]),
                    jf32(eq[p][i]),
                    jf32(ev[p][i])
                );
                if p == root_player {
                    let _ = write!(
                        o,
                        ",\"strategy\":{}",
                        jarr((0..na).map(|a| jf32(strategy[a * nh + i])))
                    );
                }
                o.push('}');
            }
            o.push(']');
            if p == 0 {
                o.push(',');
            }
        }
        o.push_str("}\n");
        std::fs::write(path, o).unwrap_or_else(|e| die(&format!("cannot write {path}: {e}")));
    }

    let total_s = t_total.elapsed().as_secs_f64();
    let pot_f = pot as f64;
    let mut j = String::new();
    let _ = write!(j, "{{\"solver\":\"postflop-solver\"");
    let _ = write!(j, ",\"board\":{}", jstr(board_str));
    let _ = write!(j, ",\"pot\":{pot},\"stack\":{stack}");
    let _ = write!(
        j,
        ",\"sizes\":{{\"flop\":[{},{}],\"turn\":[{},{}],\"river\":[{},{}],\"turn_donk\":{},\"river_donk\":{}}}",
        jstr(&flop_b),
        jstr(&flop_r),
        jstr(&turn_b),
        jstr(&turn_r),
        jstr(&river_b),
        jstr(&river_r),
        turn_donk.as_ref().map_or("null".to_string(), |d| jstr(&d.0)),
        river_donk.as_ref().map_or("null".to_string(), |d| jstr(&d.0))
    );
    let _ = write!(
        j,
        ",\"add_allin_threshold\":{},\"force_allin_threshold\":{},\"merging_threshold\":{},\"rake_rate\":{},\"rake_cap\":{}",
        jnum(add_allin_threshold),
        jnum(force_allin_threshold),
        jnum(merging_threshold),
        jnum(rake_rate),
        jnum(rake_cap)
    );
    let _ = write!(
        j,
        ",\"target_pct\":{},\"target_chips\":{},\"max_iterations\":{max_iterations}",
        jnum(target_pct),
        jf32(target)
    );
    let _ = write!(
        j,
        ",\"exploitability\":{},\"exploitability_pct\":{}",
        jf32(exploitability),
        jnum(exploitability as f64 / pot_f * 100.0)
    );
    let _ = write!(
        j,
        ",\"iterations\":{}",
        iterations.map_or("null".to_string(), |i| i.to_string())
    );
    let _ = write!(
        j,
        ",\"seconds\":{},\"seconds_total\":{},\"seconds_build\":{},\"seconds_alloc\":{}",
        jnum(solve_s),
        jnum(total_s),
        jnum(build_s),
        jnum(alloc_s)
    );
    let _ = write!(
        j,
        ",\"compressed\":{compress},\"memory_bytes\":{},\"memory_bytes_f32\":{mem_f32},\"memory_bytes_compressed\":{mem_i16}",
        if compress { mem_i16 } else { mem_f32 }
    );
    if let Some(c) = cpu_solve {
        let _ = write!(j, ",\"cpu_seconds_solve\":{}", jnum(c));
    }
    if let Some(c) = cpu_seconds() {
        let _ = write!(j, ",\"cpu_seconds_total\":{}", jnum(c));
    }
    if let Some(rss) = peak_rss_bytes() {
        let _ = write!(j, ",\"peak_rss_bytes\":{rss}");
    }
    let _ = write!(
        j,
        ",\"oop_equity\":{},\"ip_equity\":{},\"oop_ev\":{},\"ip_ev\":{}",
        jf32(oop_equity),
        jf32(ip_equity),
        jf32(oop_ev),
        jf32(ip_ev)
    );
    if args.get("--dump-tree").is_some() {
        let _ = write!(
            j,
            ",\"tree_decision_nodes\":{},\"tree_terminals\":{}",
            tree_counts[0], tree_counts[1]
        );
    }
    let _ = write!(
        j,
        ",\"num_hands\":[{},{}]",
        game.private_cards(0).len(),
        game.private_cards(1).len()
    );
    let _ = write!(
        j,
        ",\"root_player\":{},\"root_actions\":{},\"root_freqs\":{}",
        jstr(if root_player == 0 { "oop" } else { "ip" }),
        jarr(actions.iter().map(|a| jstr(a))),
        jarr(freqs.iter().map(|&f| jnum(f)))
    );
    let _ = write!(
        j,
        ",\"threads\":{threads},\"stopping\":{}",
        jstr(if lib_solve { "library solve()" } else { "solve() loop via solve_step" })
    );
    j.push('}');
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = writeln!(lock, "{j}");
}

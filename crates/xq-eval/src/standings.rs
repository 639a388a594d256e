//! Scoring and ranking.
//!
//! Scoring (第14条 14.1, and 第一节 五 "对局记分"): a win scores 1, a draw ½, a loss 0; a game won
//! because the opponent was absent ("+") scores 1, which is how a Swiss bye is counted here.
//!
//! Ranking:
//! * round robin (第15条 15.1, 一局循环制个人赛): points, then 小分, then wins (胜局), then the
//!   direct encounter (直胜), then violations (犯规, fewer first); otherwise the rank is shared.
//!   小分 is "所胜对手的全部积分加上所和对手的一半" (第一节 五: "A+B/2"): the final points of
//!   every opponent beaten plus half the final points of every opponent drawn, counted per game
//!   (in a multi-game encounter each game adds its term).
//! * Swiss (第15条 15.2, 积分编排制个人赛): points, then 对手分 (the sum of the final points of
//!   every opponent met, per game; a bye has no opponent and adds nothing), then wins, then
//!   violations; otherwise the rank is shared.
//!
//! The direct encounter among several tied players is the points each scored in the games
//! between them. Violations are losses by forfeit ([`crate::record::VIOLATION_TERMINATION`]).
//! Ranks are shared (same number, the next rank skipped) when every criterion is equal.

use crate::record::GameRecord;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// Which article's tie-break order applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieBreakRule {
    /// 第15条 15.1: points, 小分, wins, direct encounter, violations.
    RoundRobin,
    /// 第15条 15.2: points, 对手分, wins, violations.
    Swiss,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Player index.
    pub player: usize,
    /// Rank, 1-based; tied players share it.
    pub rank: usize,
    /// Points (byes included).
    pub points: f64,
    /// Games played (byes excluded).
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Byes received.
    pub byes: u64,
    /// 小分 (Sonneborn–Berger: A + B/2).
    pub sonneborn_berger: f64,
    /// 对手分 (sum of the opponents' points).
    pub opponents_points: f64,
    /// Points in the games among the players tied with this one on every earlier criterion
    /// (round robin only; 0 otherwise).
    pub direct: f64,
    /// Losses by forfeit (犯规).
    pub violations: u64,
}

/// Points of a bye, in half points (1 point: "+" 等于1分).
pub const BYE_HALF_POINTS: u64 = 2;

/// Computes standings for `players` players from finished games and byes (player indices).
///
/// ```
/// use xq_core::GameResult;
/// use xq_eval::record::GameRecord;
/// use xq_eval::standings::{TieBreakRule, standings};
/// let g = GameRecord { game: 0, round: 1, pair: 0, red: 0, black: 1, opening: None,
///     result: GameResult::RedWins, outcome: None, plies: None };
/// let table = standings(&[g], &[], 2, TieBreakRule::RoundRobin);
/// assert_eq!((table[0].player, table[0].rank, table[0].points), (0, 1, 1.0));
/// ```
pub fn standings(
    records: &[GameRecord],
    byes: &[usize],
    players: usize,
    rule: TieBreakRule,
) -> Vec<Standing> {
    // Everything in half points (quarter points for 小分) so ties compare exactly.
    let mut half = vec![0u64; players];
    let mut rows: Vec<Standing> = (0..players)
        .map(|player| Standing {
            player,
            rank: 0,
            points: 0.0,
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            byes: 0,
            sonneborn_berger: 0.0,
            opponents_points: 0.0,
            direct: 0.0,
            violations: 0,
        })
        .collect();
    let valid = |r: &&GameRecord| r.red < players && r.black < players;
    for r in records.iter().filter(valid) {
        for p in [r.red, r.black] {
            let h = r.half_points_of(p).unwrap_or(0);
            half[p] += u64::from(h);
            let row = &mut rows[p];
            row.games += 1;
            match h {
                2 => row.wins += 1,
                1 => row.draws += 1,
                _ => row.losses += 1,
            }
            if r.is_violation_by(p) {
                row.violations += 1;
            }
        }
    }
    for &p in byes.iter().filter(|&&p| p < players) {
        half[p] += BYE_HALF_POINTS;
        rows[p].byes += 1;
    }
    let mut sb_quarters = vec![0u64; players];
    let mut opp_half = vec![0u64; players];
    for r in records.iter().filter(valid) {
        for (p, q) in [(r.red, r.black), (r.black, r.red)] {
            opp_half[p] += half[q];
            match r.half_points_of(p) {
                Some(2) => sb_quarters[p] += 2 * half[q],
                Some(1) => sb_quarters[p] += half[q],
                _ => {}
            }
        }
    }
    for p in 0..players {
        rows[p].points = half[p] as f64 / 2.0;
        rows[p].sonneborn_berger = sb_quarters[p] as f64 / 4.0;
        rows[p].opponents_points = opp_half[p] as f64 / 2.0;
    }
    let primary = |a: &Standing| -> (u64, u64, u64) {
        let second = match rule {
            TieBreakRule::RoundRobin => sb_quarters[a.player],
            TieBreakRule::Swiss => 2 * opp_half[a.player],
        };
        (half[a.player], second, a.wins)
    };
    rows.sort_by(|a, b| primary(b).cmp(&primary(a)).then(a.player.cmp(&b.player)));

    // Direct encounter within each group tied on the primary keys (round robin only).
    let mut start = 0;
    while start < rows.len() {
        let key = primary(&rows[start]);
        let end = (start..rows.len()).find(|&i| primary(&rows[i]) != key).unwrap_or(rows.len());
        if rule == TieBreakRule::RoundRobin && end - start > 1 {
            let group: Vec<usize> = rows[start..end].iter().map(|r| r.player).collect();
            for row in &mut rows[start..end] {
                let direct_half: u64 = records
                    .iter()
                    .filter(|r| group.contains(&r.red) && group.contains(&r.black))
                    .filter_map(|r| r.half_points_of(row.player))
                    .map(u64::from)
                    .sum();
                row.direct = direct_half as f64 / 2.0;
            }
        }
        rows[start..end].sort_by(|a, b| tail_order(a, b).then(a.player.cmp(&b.player)));
        // Ranks: equal on every criterion shares the rank.
        for i in start..end {
            rows[i].rank = if i > start && tail_order(&rows[i - 1], &rows[i]) == Ordering::Equal {
                rows[i - 1].rank
            } else {
                i + 1
            };
        }
        start = end;
    }
    rows
}

/// Order after the primary keys: direct encounter (more first), then violations (fewer first).
fn tail_order(a: &Standing, b: &Standing) -> Ordering {
    b.direct.total_cmp(&a.direct).then(a.violations.cmp(&b.violations))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xq_core::GameResult;

    fn g(red: usize, black: usize, result: GameResult) -> GameRecord {
        GameRecord {
            game: 0,
            round: 1,
            pair: 0,
            red,
            black,
            opening: None,
            result,
            outcome: None,
            plies: None,
        }
    }

    use GameResult::{BlackWins as B, Draw as D, RedWins as R};

    #[test]
    fn round_robin_sonneborn_berger_breaks_the_tie() {
        // Four players, single round robin. Crosstable (row's result against column):
        //      0    1    2    3   | points
        //  0   -    1    0    1   | 2
        //  1   0    -    1    1   | 2
        //  2   1    0    -    ½   | 1.5
        //  3   0    0    ½    -   | 0.5
        let games = [g(0, 1, R), g(2, 0, R), g(0, 3, R), g(1, 2, R), g(3, 1, B), g(2, 3, D)];
        let t = standings(&games, &[], 4, TieBreakRule::RoundRobin);
        // 小分: player 0 beat 1 (2) and 3 (0.5) = 2.5; player 1 beat 2 (1.5) and 3 (0.5) = 2.
        assert_eq!(t.iter().map(|s| s.player).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!((t[0].sonneborn_berger, t[1].sonneborn_berger), (2.5, 2.0));
        // Player 2: beat 0 (2) + half of 3 (0.25) = 2.25; player 3: half of 2 = 0.75.
        assert_eq!((t[2].sonneborn_berger, t[3].sonneborn_berger), (2.25, 0.75));
        assert_eq!(t.iter().map(|s| s.rank).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    }

    #[test]
    fn round_robin_wins_then_direct_encounter_then_shared() {
        // Players 0 and 1 tie on points and 小分; 0 has more wins.
        // 0: beats 2, loses to 3, draws 1 → 1.5 points, 1 win... build a table where it matters:
        //      0    1    2    3
        //  0   -    ½    1    0     1.5 (1 win)
        //  1   ½    -    ½    ½     1.5 (0 wins)
        //  2   0    ½    -    1     1.5
        //  3   1    ½    0    -     1.5
        let games = [g(0, 1, D), g(0, 2, R), g(3, 0, R), g(1, 2, D), g(1, 3, D), g(2, 3, R)];
        let t = standings(&games, &[], 4, TieBreakRule::RoundRobin);
        // Everyone has 1.5 points; 小分: 0 = 1.5 (beat 2) + 0.75 (drew 1) = 2.25,
        // 1 = 0.75·3 = 2.25, 2 = 0.75 + 1.5 = 2.25, 3 = 1.5 + 0.75 = 2.25. Wins: 0, 2, 3 have one.
        assert!(t.iter().all(|s| s.points == 1.5 && s.sonneborn_berger == 2.25));
        assert_eq!(t[3].player, 1, "the only player without a win is last");
        // Among 0, 2, 3 (tied on points, 小分, wins) the mini-table is a cycle: 0 beat 2,
        // 2 beat 3, 3 beat 0: one point each, so they share first place.
        assert_eq!(t.iter().map(|s| s.rank).collect::<Vec<_>>(), vec![1, 1, 1, 4]);
        assert!(t[..3].iter().all(|s| s.direct == 1.0));
    }

    #[test]
    fn direct_encounter_decides_two_tied_players() {
        // 0 and 1 tie on points, 小分 and wins; 0 beat 1.
        //      0   1   2   3
        //  0   -   1   0   ½    1.5
        //  1   0   -   ½   1    1.5
        //  2   1   ½   -   0    1.5
        //  3   ½   0   1   -    1.5
        let games = [g(0, 1, R), g(2, 0, R), g(0, 3, D), g(1, 2, D), g(1, 3, R), g(3, 2, R)];
        let t = standings(&games, &[], 4, TieBreakRule::RoundRobin);
        assert!(t.iter().all(|s| s.points == 1.5 && s.wins == 1));
        // 小分 all 2.25; wins all 1: the whole table is one tie group, whose mini-table is the
        // full table: everyone 1.5 → violations decide nothing → all share rank 1.
        assert!(t.iter().all(|s| s.rank == 1));
        // With player 3's draw against 0 turned into a forfeit loss, 3 drops and 0 leads.
        let mut games = games.to_vec();
        let forfeit = xq_core::Outcome::new(R, xq_core::Termination::Forfeit, "4.1.10");
        games[2] = GameRecord { result: R, outcome: Some(forfeit), ..games[2].clone() };
        let t = standings(&games, &[], 4, TieBreakRule::RoundRobin);
        assert_eq!(t[0].player, 0);
        assert_eq!(t[3].player, 3);
        assert_eq!(t[3].violations, 1);
        // Players 1 and 2 now tie on 1.5 points; 小分: 1 beat 3 (1) + half of 2 (0.75) = 1.75,
        // 2 beat 0 (2) + half of 1 (0.75) = 2.75, so 2 ranks above 1 despite its larger index.
        let p1 = t.iter().find(|s| s.player == 1).unwrap();
        let p2 = t.iter().find(|s| s.player == 2).unwrap();
        assert!(p2.sonneborn_berger > p1.sonneborn_berger);
        assert!(p2.rank < p1.rank);
    }

    #[test]
    fn swiss_uses_opponents_points_and_byes() {
        // Round 1: 0 beats 1, 2 beats 3, 4 has a bye. Round 2: 0 beats 2, 4 beats 1, 3 bye.
        let games = [g(0, 1, R), g(2, 3, R), g(0, 2, R), g(4, 1, R)];
        let t = standings(&games, &[4, 3], 5, TieBreakRule::Swiss);
        // Points: 0 = 2, 4 = 2 (bye + win), 2 = 1, 3 = 1 (bye), 1 = 0.
        // 对手分: 0 met 1 (0) and 2 (1) = 1; 4 met 1 (0) only = 0 → 0 ranks above 4.
        assert_eq!(t.iter().map(|s| s.player).collect::<Vec<_>>(), vec![0, 4, 2, 3, 1]);
        assert_eq!(t[1].byes, 1);
        assert_eq!((t[0].opponents_points, t[1].opponents_points), (1.0, 0.0));
        // 2 met 3 (1) and 0 (2) = 3; 3 met 2 (1) = 1.
        assert_eq!((t[2].opponents_points, t[3].opponents_points), (3.0, 1.0));
        assert_eq!(t.iter().map(|s| s.rank).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    }
}

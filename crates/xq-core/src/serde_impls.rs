//! `serde` for the vocabulary (feature `serde`): every value is written in its text form
//! ([`crate::text`]), so configuration files, journals and JSON reports read as people write
//! them, and reading one back validates it.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! use xq_core::{GameRules, Outcome, RuleSet};
//! let rules: GameRules = serde_json::from_str(r#"{"rule_set": "cxa2020"}"#).unwrap();
//! assert_eq!(rules.rule_set, RuleSet::Cxa2020);
//! assert_eq!(rules.move_limit_plies, 120);
//! assert!(serde_json::from_str::<GameRules>(r#"{"repetition_count": 1}"#).is_err());
//! assert!(serde_json::from_str::<GameRules>(r#"{"rule_sets": "cxa"}"#).is_err());
//! # }
//! ```

use crate::game::GameRules;
use crate::outcome::{GameResult, Outcome, Termination};
use crate::qili::RuleSet;
use crate::text::known_article;
use crate::types::{Color, Move, Square};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serialises through `Display` and deserialises through `FromStr`.
macro_rules! as_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$t, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(D::Error::custom)
            }
        }
    )*};
}

as_text!(Color, RuleSet, Termination, GameResult, Square, Move);

/// `GameRules` as written in a `[rules]` section: every key optional, unknown keys refused.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, default, rename = "GameRules")]
struct RulesText {
    rule_set: RuleSet,
    move_limit_plies: u32,
    limit_counts_ten_checks: bool,
    repetition_count: u8,
}

impl Default for RulesText {
    fn default() -> RulesText {
        RulesText::from(GameRules::default())
    }
}

impl From<GameRules> for RulesText {
    fn from(r: GameRules) -> RulesText {
        RulesText {
            rule_set: r.rule_set,
            move_limit_plies: r.move_limit_plies,
            limit_counts_ten_checks: r.limit_counts_ten_checks,
            repetition_count: r.repetition_count,
        }
    }
}

impl Serialize for GameRules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RulesText::from(*self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GameRules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GameRules, D::Error> {
        let t = RulesText::deserialize(deserializer)?;
        let rules = GameRules {
            rule_set: t.rule_set,
            move_limit_plies: t.move_limit_plies,
            limit_counts_ten_checks: t.limit_counts_ten_checks,
            repetition_count: t.repetition_count,
        };
        rules.validate().map_err(D::Error::custom)?;
        Ok(rules)
    }
}

/// `Outcome` with its article as text.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Outcome")]
struct OutcomeText<'a> {
    result: GameResult,
    reason: Termination,
    #[serde(borrow)]
    article: std::borrow::Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    must_vary: Option<Color>,
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        OutcomeText {
            result: self.result,
            reason: self.reason,
            article: self.article.into(),
            must_vary: self.must_vary,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        let t = OutcomeText::deserialize(deserializer)?;
        let article = known_article(&t.article)
            .ok_or_else(|| D::Error::custom(format!("unknown rulebook article {:?}", t.article)))?;
        Ok(Outcome { result: t.result, reason: t.reason, article, must_vary: t.must_vary })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip_through_json() {
        let o = Outcome {
            must_vary: Some(Color::Red),
            ..Outcome::new(GameResult::BlackWins, Termination::PerpetualChase, "26.4")
        };
        let text = serde_json::to_string(&o).unwrap();
        assert_eq!(text, r#"{"result":"0-1","reason":"perpetual_chase","article":"26.4","must_vary":"red"}"#);
        assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), o);
        let bad = text.replace("26.4", "99.1");
        assert!(serde_json::from_str::<Outcome>(&bad).unwrap_err().to_string().contains("99.1"));
    }

    #[test]
    fn rules_round_trip_and_refuse_bad_values() {
        let rules = GameRules { rule_set: RuleSet::Cxa2020, move_limit_plies: 100, ..GameRules::default() };
        let text = serde_json::to_string(&rules).unwrap();
        assert_eq!(serde_json::from_str::<GameRules>(&text).unwrap(), rules);
        let e = serde_json::from_str::<GameRules>(r#"{"move_limit_plies": 0}"#).unwrap_err();
        assert!(e.to_string().contains("rules.move_limit_plies = 0"), "{e}");
        let e = serde_json::from_str::<GameRules>(r#"{"rule_set": "axf"}"#).unwrap_err();
        assert!(e.to_string().contains("axf"), "{e}");
    }

    #[test]
    fn moves_and_squares_are_text() {
        let m: Move = serde_json::from_str("\"h2e2\"").unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), "\"h2e2\"");
        assert!(serde_json::from_str::<Square>("\"k9\"").is_err());
    }
}

//! [`EvaluatorSpec`]: which evaluator a search runs on, as configs and the CLI name it, and the
//! one place it is built — for self-play, matches, the loop's gates and ladder, and the engine.
//!
//! In TOML a built-in evaluator is a plain name and a network is a table:
//!
//! ```
//! use xq_nn::EvaluatorSpec;
//! #[derive(serde::Deserialize)]
//! struct Player { evaluator: EvaluatorSpec }
//! let p: Player = toml::from_str(r#"evaluator = "material""#).unwrap();
//! assert_eq!(p.evaluator, EvaluatorSpec::Builtin(xq_mcts::BuiltinEvaluator::Material));
//! let p: Player = toml::from_str(r#"evaluator = { kind = "checkpoint", path = "models/run/accepted" }"#).unwrap();
//! assert!(matches!(p.evaluator, EvaluatorSpec::Checkpoint { .. }));
//! assert!(toml::from_str::<Player>(r#"evaluator = "materiel""#).is_err());
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use xq_core::GameRules;
use xq_mcts::{BuiltinEvaluator, Evaluator, SharedEvaluator};

use std::sync::Arc;

use crate::checkpoint::{CheckpointError, load_checkpoint, resolve_checkpoint};
use crate::cpu_inference::Precision as CpuPrecision;
use crate::device::{DeviceError, DeviceSetting};
use crate::evaluator::BatchEvaluator;
use crate::net_evaluator::{DEFAULT_CACHE_POSITIONS, DEFAULT_EVAL_BATCH, NetEvaluator};

/// Most positions one shared network evaluates at once when games on many threads share it.
pub const SHARED_MAX_BATCH: usize = 256;

/// Which evaluator a search runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvaluatorSpec {
    /// A built-in evaluator (no network): `"uniform"` or `"material"`.
    Builtin(BuiltinEvaluator),
    /// A trained network: a checkpoint stem, its `.json`/`.bpk` file, or a directory (its
    /// newest checkpoint), on a device.
    Checkpoint {
        /// Where the checkpoint is.
        path: PathBuf,
        /// Where the network runs.
        device: DeviceSetting,
        /// The arithmetic of its products on the CPU (`f32` unless a config says `int8`).
        precision: CpuPrecision,
    },
}

/// An evaluator that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The checkpoint is missing or unreadable.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The device is not in this build.
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The evaluation thread could not be started.
    #[error("starting the evaluation thread: {0}")]
    Thread(std::io::Error),
}

/// A built evaluator and what records need to know of it.
pub struct BuiltEvaluator {
    /// The evaluator.
    pub evaluator: Box<dyn Evaluator + Send>,
    /// The model id data sets record: the checkpoint's id, or the built-in evaluator's name.
    pub model_id: String,
    /// For a network, the rules of the data it was trained on (`None` for built-ins and for
    /// checkpoints that do not record them).
    pub trained_rules: Option<GameRules>,
}

impl std::fmt::Debug for BuiltEvaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltEvaluator").field("model_id", &self.model_id).finish_non_exhaustive()
    }
}

impl EvaluatorSpec {
    /// A checkpoint on the CPU.
    pub fn checkpoint(path: impl Into<PathBuf>) -> EvaluatorSpec {
        EvaluatorSpec::Checkpoint {
            path: path.into(),
            device: DeviceSetting::Cpu,
            precision: CpuPrecision::F32,
        }
    }

    /// The same spec with a network placed on `device` (built-ins are unchanged).
    pub fn on_device(self, device: DeviceSetting) -> EvaluatorSpec {
        match self {
            EvaluatorSpec::Checkpoint { path, precision, .. } => {
                EvaluatorSpec::Checkpoint { path, device, precision }
            }
            builtin => builtin,
        }
    }

    /// The same spec with a network's CPU products in `precision` (built-ins are unchanged).
    pub fn with_precision(self, precision: CpuPrecision) -> EvaluatorSpec {
        match self {
            EvaluatorSpec::Checkpoint { path, device, .. } => {
                EvaluatorSpec::Checkpoint { path, device, precision }
            }
            builtin => builtin,
        }
    }

    /// A short label for names and reports: the built-in's name or the checkpoint's path.
    pub fn label(&self) -> String {
        match self {
            EvaluatorSpec::Builtin(b) => b.name().to_string(),
            EvaluatorSpec::Checkpoint { path, .. } => path.display().to_string(),
        }
    }

    /// Whether a network evaluates (the evaluator is worth sharing between threads).
    pub fn is_network(&self) -> bool {
        matches!(self, EvaluatorSpec::Checkpoint { .. })
    }

    /// Builds the evaluator: a built-in one, or the checkpoint's network with the default
    /// cache ([`DEFAULT_CACHE_POSITIONS`]).
    ///
    /// # Errors
    /// [`SpecError`] when the checkpoint cannot be loaded or the device is not built.
    pub fn build(&self) -> Result<BuiltEvaluator, SpecError> {
        match self {
            EvaluatorSpec::Builtin(b) => Ok(BuiltEvaluator {
                evaluator: b.build(),
                model_id: b.name().to_string(),
                trained_rules: None,
            }),
            EvaluatorSpec::Checkpoint { path, device, precision } => {
                let stem = resolve_checkpoint(path)?;
                let device = device.device()?;
                let (net, meta) = load_checkpoint(&stem, None, &device)?;
                let network = BatchEvaluator::new(net, device, DEFAULT_CACHE_POSITIONS)
                    .and_then(|network| match precision {
                        CpuPrecision::F32 => Ok(network),
                        other => network.with_cpu_precision(*other),
                    })
                    .map_err(|source| CheckpointError::Network { path: stem.clone(), source })?;
                let network = Arc::new(network);
                let evaluator = NetEvaluator::new(network, DEFAULT_EVAL_BATCH).with_model_id(&meta.model_id);
                Ok(BuiltEvaluator {
                    evaluator: Box::new(evaluator),
                    model_id: meta.model_id,
                    trained_rules: meta.trained_rules,
                })
            }
        }
    }

    /// Builds the evaluator on an evaluation thread of its own, to be shared by searches on
    /// many threads (their positions are evaluated together in batches of up to
    /// [`SHARED_MAX_BATCH`]). Returns it with the model id.
    ///
    /// # Errors
    /// As [`EvaluatorSpec::build`], or when the thread cannot be started.
    pub fn build_shared(&self) -> Result<(SharedEvaluator, String), SpecError> {
        let built = self.build()?;
        let shared = SharedEvaluator::spawn(built.evaluator, SHARED_MAX_BATCH).map_err(SpecError::Thread)?;
        Ok((shared, built.model_id))
    }

    /// The checkpoint's metadata path, for a network.
    pub fn checkpoint_path(&self) -> Option<&Path> {
        match self {
            EvaluatorSpec::Checkpoint { path, .. } => Some(path),
            EvaluatorSpec::Builtin(_) => None,
        }
    }
}

impl From<BuiltinEvaluator> for EvaluatorSpec {
    fn from(b: BuiltinEvaluator) -> EvaluatorSpec {
        EvaluatorSpec::Builtin(b)
    }
}

impl fmt::Display for EvaluatorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The table form of a spec (`{ kind = "checkpoint", path = "…" }`).
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum SpecTable {
    Uniform,
    Material,
    Checkpoint {
        path: PathBuf,
        #[serde(default)]
        device: DeviceSetting,
        #[serde(default, skip_serializing_if = "is_f32")]
        precision: CpuPrecision,
    },
}

fn is_f32(precision: &CpuPrecision) -> bool {
    *precision == CpuPrecision::F32
}

impl Serialize for EvaluatorSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            EvaluatorSpec::Builtin(b) => serializer.serialize_str(b.name()),
            EvaluatorSpec::Checkpoint { path, device, precision } => {
                SpecTable::Checkpoint { path: path.clone(), device: *device, precision: *precision }
                    .serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for EvaluatorSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EvaluatorSpec, D::Error> {
        struct SpecVisitor;

        impl<'de> Visitor<'de> for SpecVisitor {
            type Value = EvaluatorSpec;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#""uniform", "material" or { kind = "checkpoint", path = "…" }"#)
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<EvaluatorSpec, E> {
                match name {
                    "uniform" => Ok(EvaluatorSpec::Builtin(BuiltinEvaluator::Uniform)),
                    "material" => Ok(EvaluatorSpec::Builtin(BuiltinEvaluator::Material)),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<EvaluatorSpec, M::Error> {
                Ok(match SpecTable::deserialize(de::value::MapAccessDeserializer::new(map))? {
                    SpecTable::Uniform => EvaluatorSpec::Builtin(BuiltinEvaluator::Uniform),
                    SpecTable::Material => EvaluatorSpec::Builtin(BuiltinEvaluator::Material),
                    SpecTable::Checkpoint { path, device, precision } => {
                        EvaluatorSpec::Checkpoint { path, device, precision }
                    }
                })
            }
        }

        deserializer.deserialize_any(SpecVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_json() {
        for spec in [
            EvaluatorSpec::Builtin(BuiltinEvaluator::Uniform),
            EvaluatorSpec::Checkpoint {
                path: "models/x".into(),
                device: DeviceSetting::Gpu,
                precision: CpuPrecision::F32,
            },
            EvaluatorSpec::checkpoint("models/y").with_precision(CpuPrecision::Int8),
        ] {
            let text = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<EvaluatorSpec>(&text).unwrap(), spec, "{text}");
        }
        let e = serde_json::from_str::<EvaluatorSpec>(r#"{"kind": "checkpoint", "path": "x", "cache": 3}"#)
            .unwrap_err();
        assert!(e.to_string().contains("cache"), "{e}");
        let int8: EvaluatorSpec =
            toml::from_str::<toml::Table>(r#"e = { kind = "checkpoint", path = "x", precision = "int8" }"#)
                .unwrap()["e"]
                .clone()
                .try_into()
                .unwrap();
        assert!(matches!(int8, EvaluatorSpec::Checkpoint { precision: CpuPrecision::Int8, .. }));
        assert!(!serde_json::to_string(&EvaluatorSpec::checkpoint("x")).unwrap().contains("precision"));
    }

    #[test]
    fn a_missing_checkpoint_is_a_clear_error() {
        let e = EvaluatorSpec::checkpoint("/nonexistent/xq-model").build().unwrap_err();
        assert!(e.to_string().contains("/nonexistent/xq-model"), "{e}");
    }
}

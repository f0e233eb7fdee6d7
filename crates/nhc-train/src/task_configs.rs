//! A training config with tables for single tasks: the top-level fields hold for every task, a
//! `[tasks.NAME]` table changes some of them for the task `NAME` (e.g. Bus feedback for the copy
//! family only). `nhc train --config`, `nhc sweep --config` and the recipe
//! ([`TaskConfigs::recipe`], `configs/recipe.toml`) read this form; a file without tables is a
//! plain [`TrainConfig`].

use crate::config::{ConfigError, TrainConfig, ValidConfig, one_line, toml_kind_error};
use std::collections::BTreeMap;
use std::path::Path;

/// The recipe (ours, beyond the paper; docs/RECIPE.md, "The recipe"), built in so that
/// `nhc train --recipe` needs no file.
pub const RECIPE_TOML: &str = include_str!("../../../configs/recipe.toml");

/// The config of every task, and the tasks whose config differs.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskConfigs {
    base: ValidConfig,
    tasks: BTreeMap<String, ValidConfig>,
}

impl TaskConfigs {
    /// One config for every task.
    pub fn single(config: ValidConfig) -> Self {
        TaskConfigs { base: config, tasks: BTreeMap::new() }
    }

    /// The recipe's configs ([`RECIPE_TOML`]).
    pub fn recipe() -> Self {
        Self::from_toml(RECIPE_TOML).expect("configs/recipe.toml is checked by the tests")
    }

    /// Parses a TOML document: top-level fields (missing ones take their defaults), then
    /// optionally `[tasks.NAME]` tables, each checked as the top level with its fields replaced.
    /// A table must name a built-in task ([`nhc_tasks::registry::names`]).
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let mut doc: toml::Table =
            text.parse().map_err(|e: toml::de::Error| ConfigError::Toml(one_line(&e, text)))?;
        let Some(tables) = doc.remove("tasks") else {
            return Ok(Self::single(TrainConfig::from_toml(text)?.validate()?));
        };
        let base = Self::table(doc.clone(), "the top level")?;
        let toml::Value::Table(tables) = tables else {
            return Err(ConfigError::Toml("`tasks` must be tables, e.g. [tasks.copy]".to_string()));
        };
        let names = nhc_tasks::registry::names();
        let mut tasks = BTreeMap::new();
        for (name, table) in tables {
            if !names.contains(&name.as_str()) {
                return Err(ConfigError::Toml(format!(
                    "[tasks.{name}]: no such task; the tasks are {}",
                    names.join(", ")
                )));
            }
            let toml::Value::Table(table) = table else {
                return Err(ConfigError::Toml(format!("tasks.{name} must be a table, [tasks.{name}]")));
            };
            let mut merged = doc.clone();
            merged.extend(table);
            tasks.insert(name.clone(), Self::table(merged, &format!("[tasks.{name}]"))?);
        }
        Ok(TaskConfigs { base, tasks })
    }

    /// Reads and checks a TOML file; its errors name the file.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        use nhc_io::limits::{MAX_STATE_BYTES, read_text};
        let text = read_text(path, "config", MAX_STATE_BYTES)?;
        Self::from_toml(&text)
            .map_err(|e| ConfigError::InFile { path: path.display().to_string(), source: Box::new(e) })
    }

    fn table(table: toml::Table, place: &str) -> Result<ValidConfig, ConfigError> {
        let kind = toml_kind_error(&table);
        let config: TrainConfig = toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| {
            let message = kind.map_or_else(|| e.message().to_string(), |k| k.to_string());
            ConfigError::Toml(format!("{place}: {message}"))
        })?;
        config.validate().map_err(|e| ConfigError::Toml(format!("{place}: {e}")))
    }

    /// The config of `task`: its table's, or the top level's.
    pub fn get(&self, task: &str) -> &ValidConfig {
        self.tasks.get(task).unwrap_or(&self.base)
    }

    /// The tasks with a table of their own.
    pub fn tables(&self) -> impl Iterator<Item = &str> {
        self.tasks.keys().map(String::as_str)
    }

    /// Every config changed by `edit` (e.g. `--max-iterations`), checked again.
    pub fn edit<E: From<ConfigError>>(
        self,
        edit: impl Fn(TrainConfig) -> Result<TrainConfig, E>,
    ) -> Result<Self, E> {
        let one = |c: ValidConfig| -> Result<ValidConfig, E> { Ok(edit(c.get().clone())?.validate()?) };
        let mut tasks = BTreeMap::new();
        for (name, c) in self.tasks {
            tasks.insert(name, one(c)?);
        }
        Ok(TaskConfigs { base: one(self.base)?, tasks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_changes_its_task_only() {
        let c = TaskConfigs::from_toml("check_level = 30\n[tasks.copy]\nbus_feedback = true\n").unwrap();
        assert_eq!(c.get("copy").get().bus_feedback, Some(true));
        assert_eq!(c.get("copy").get().check_level, 30);
        assert_eq!(c.get("sort").get().bus_feedback, None);
        assert_eq!(c.get("sort").get().check_level, 30);
        assert_eq!(c.tables().collect::<Vec<_>>(), ["copy"]);
        let c = c
            .edit(|mut c| {
                c.max_iterations = 7;
                Ok::<_, ConfigError>(c)
            })
            .unwrap();
        assert_eq!((c.get("copy").get().max_iterations, c.get("sort").get().max_iterations), (7, 7));
        assert_eq!(c.get("copy").get().bus_feedback, Some(true));
    }

    #[test]
    fn a_plain_file_is_one_config() {
        let c = TaskConfigs::from_toml("check_level = 30").unwrap();
        assert_eq!(c.get("copy"), c.get("plan"));
        assert_eq!(c.get("copy").get().check_level, 30);
    }

    #[test]
    fn bad_tables_are_refused() {
        let err = |t: &str| TaskConfigs::from_toml(t).unwrap_err().to_string();
        assert!(err("[tasks.copi]\nbus_feedback = true").contains("[tasks.copi]: no such task"));
        assert!(err("tasks = 3").contains("must be tables"));
        assert!(err("[tasks]\ncopy = 1").contains("tasks.copy must be a table"));
        let e = err("[tasks.copy]\nword_noise = -1");
        assert!(e.contains("word_noise"), "{e}");
        let e = err("[tasks.copy]\nbogus = 1");
        assert!(e.contains("[tasks.copy]") && e.contains("bogus"), "{e}");
        assert!(err("check_level = \n").contains("line 1"));
    }

    #[test]
    fn the_recipe_parses() {
        let r = TaskConfigs::recipe();
        assert!(r.get("copy").get().check_level > 0);
        assert!(r.get("arithmetic").get().word_noise > 0.0 && r.get("sort").get().word_noise == 0.0);
    }
}

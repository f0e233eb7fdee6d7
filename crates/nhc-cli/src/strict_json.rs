//! JSON as a user's input is read: like `serde_json::from_str` into a [`Value`], except that an
//! object with a key twice is an error (serde_json keeps the last one silently, so
//! `{"copies":2,"copies":3}` would run with 3 copies and no word).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Parses `text` as one JSON value; a repeated key in any object is an error naming the key.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("the key \"{key}\" appears twice in one object")));
            }
            let Strict(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Any JSON value without repeated keys reads as serde_json reads it.
    fn json() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            (-1e300f64..1e300).prop_map(serde_json::Value::from),
            ".{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
                prop::collection::btree_map("[a-z]{0,3}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn reads_what_serde_json_reads(v in json()) {
            let text = v.to_string();
            prop_assert_eq!(super::from_str(&text).unwrap(), serde_json::from_str::<serde_json::Value>(&text).unwrap());
        }

        /// A key given twice in any object, at any depth, is refused and named.
        #[test]
        fn a_repeated_key_is_refused(v in json(), key in "[a-z]{1,3}", depth in 0usize..4) {
            let mut text = format!("{{\"{key}\":{v},\"{key}\":{v}}}");
            for _ in 0..depth {
                text = format!("[{{\"x\":{text}}}]");
            }
            let err = super::from_str(&text).unwrap_err().to_string();
            prop_assert!(err.contains(&format!("the key \"{key}\" appears twice")), "{}", err);
        }
    }
}

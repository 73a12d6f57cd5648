//! JSON whose objects keep their keys in the order the file has them, so
//! that adding git-ward's entries to a harness's settings moves nothing else.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value; an object is a list of (key, value) in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Reads JSON text.
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Pretty text (two spaces), with a final newline.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value of `key` in an object, created as `empty` when absent.
    /// `None` when this is not an object.
    pub fn entry(&mut self, key: &str, empty: Json) -> Option<&mut Json> {
        let Json::Object(entries) = self else {
            return None;
        };
        let at = match entries.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                entries.push((key.to_string(), empty));
                entries.len() - 1
            }
        };
        Some(&mut entries[at].1)
    }

    /// Removes `key` from an object; true when it was there.
    pub fn remove(&mut self, key: &str) -> bool {
        match self {
            Json::Object(entries) => {
                let before = entries.len();
                entries.retain(|(k, _)| k != key);
                entries.len() != before
            }
            _ => false,
        }
    }

    /// Whether any string inside equals or contains `needle`.
    pub fn mentions(&self, needle: &str) -> bool {
        match self {
            Json::String(s) => s.contains(needle),
            Json::Array(items) => items.iter().any(|v| v.mentions(needle)),
            Json::Object(entries) => entries.iter().any(|(_, v)| v.mentions(needle)),
            _ => false,
        }
    }

    /// Converts a `serde_json::Value` (written with `json!`).
    pub fn from_value(v: serde_json::Value) -> Json {
        match v {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(b),
            serde_json::Value::Number(n) => Json::Number(n),
            serde_json::Value::String(s) => Json::String(s),
            serde_json::Value::Array(a) => {
                Json::Array(a.into_iter().map(Json::from_value).collect())
            }
            serde_json::Value::Object(o) => Json::Object(
                o.into_iter()
                    .map(|(k, v)| (k, Json::from_value(v)))
                    .collect(),
            ),
        }
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => out.serialize_unit(),
            Json::Bool(b) => out.serialize_bool(*b),
            Json::Number(n) => n.serialize(out),
            Json::String(s) => out.serialize_str(s),
            Json::Array(items) => {
                let mut seq = out.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(entries) => {
                let mut map = out.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(input: D) -> Result<Json, D::Error> {
        input.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            // A repeated key: the last one wins, as serde_json has it.
            entries.retain(|(old, _)| *old != k);
            entries.push((k, v));
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn keys_keep_their_order_through_a_round_trip() {
        let text =
            "{\n  \"z\": 1,\n  \"a\": [true, null, \"s\"],\n  \"m\": {\"y\": 2.5, \"b\": {}}\n}\n";
        let json = Json::parse(text).unwrap();
        assert_eq!(
            json.to_text(),
            text.replace(
                "[true, null, \"s\"]",
                "[\n    true,\n    null,\n    \"s\"\n  ]"
            )
            .replace(
                "{\"y\": 2.5, \"b\": {}}",
                "{\n    \"y\": 2.5,\n    \"b\": {}\n  }"
            )
        );
        let mut json = json;
        json.entry("new", Json::Null);
        let Json::Object(entries) = &json else {
            panic!()
        };
        let keys: Vec<_> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a", "m", "new"]);
    }
}

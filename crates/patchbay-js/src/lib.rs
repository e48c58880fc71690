//! What the wasm bindings (`patchbay-wasm`, `patchbay-syntax-wasm`,
//! `patchbay-tokens-wasm`) share, so that each stays a list of
//! deserialize - call - serialize functions.
//!
//! Two kinds of failure reach JavaScript, and they are kept apart:
//! * misuse by the caller (a non-string file, an unknown format name, a
//!   negative tag length) throws a `TypeError` or a `RangeError` whose
//!   message names the argument;
//! * bad model output never throws: it is data in the returned report.
//!
//! Other failures of a core function (a plan that cannot fit, a slice whose
//! file changed) throw a plain `Error` carrying the core's message.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub type JsResult<T = JsValue> = Result<T, JsValue>;

/// A `TypeError`: an argument of the wrong type or shape.
pub fn type_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::TypeError::new(&message.to_string()).into()
}

/// A `RangeError`: an argument of the right type but outside its set of
/// values (an unknown name, a negative length).
pub fn range_error(message: impl std::fmt::Display) -> JsValue {
    js_sys::RangeError::new(&message.to_string()).into()
}

/// A plain `Error` with a core function's own message.
pub fn error(message: impl std::fmt::Display) -> JsValue {
    let text = message.to_string();
    // serde-wasm-bindgen's errors print as `Error: ...` already.
    js_sys::Error::new(text.strip_prefix("Error: ").unwrap_or(&text)).into()
}

/// Routes a panic's message to `console.error`; every module calls it from
/// its start function. Idempotent.
pub fn install_panic_hook() {
    console_error_panic_hook::set_once();
}

/// Serializes with maps as plain objects and integers as numbers.
pub fn to_js(value: &impl Serialize) -> JsResult {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(error)
}

/// Reads an options object (or `undefined`/`null` for the defaults, which
/// are the core's own `Default`). Fields set to `undefined` count as absent.
/// A value out of its range (a negative count) is a `RangeError`, any other
/// mismatch a `TypeError`; both name `what`.
pub fn options<T: DeserializeOwned + Default>(value: Option<JsValue>, what: &str) -> JsResult<T> {
    match value {
        None => Ok(T::default()),
        Some(v) if v.is_undefined() || v.is_null() => Ok(T::default()),
        Some(v) => record(&v, what),
    }
}

/// Reads a required object argument (a request, a slice).
pub fn record<T: DeserializeOwned>(value: &JsValue, what: &str) -> JsResult<T> {
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(type_error(format!(
            "{what} must be an object, got {}",
            type_name(value)
        )));
    }
    plain(value, what)
}

/// Reads a required array argument (an arena's runs), each item as `T`.
pub fn list<T: DeserializeOwned>(value: &JsValue, what: &str) -> JsResult<Vec<T>> {
    if !js_sys::Array::is_array(value) {
        return Err(type_error(format!(
            "{what} must be an array, got {}",
            type_name(value)
        )));
    }
    plain(value, what)
}

/// `value` as `T`, read from a plain copy of it (JSON's, which drops what
/// JSON has no form for, as the caller's object would serialise).
fn plain<T: DeserializeOwned>(value: &JsValue, what: &str) -> JsResult<T> {
    let plain = js_sys::JSON::parse(&String::from(js_sys::JSON::stringify(value)?))?;
    serde_wasm_bindgen::from_value(plain).map_err(|e| misuse(what, &e.to_string()))
}

/// A deserialization message as the error a caller expects.
fn misuse(what: &str, message: &str) -> JsValue {
    let message = message.strip_prefix("Error: ").unwrap_or(message);
    let text = format!("{what}: {message}");
    // JS numbers arrive as floats: a negative or fractional count is a
    // number out of the range of the field, not a value of the wrong type;
    // a name outside an enum's names (a format's among them) is out of its
    // range too.
    let out_of_range = message.starts_with("invalid value: integer")
        || message.starts_with("unknown variant")
        || message.starts_with("unknown format")
        || (message.starts_with("invalid type: floating point") && message.contains("expected u"));
    if out_of_range {
        range_error(text)
    } else {
        type_error(text)
    }
}

/// The `files` argument as the core takes it: a plain object path -> text.
/// Any other shape, or a value that is not a string, is a `TypeError`
/// naming the path.
pub fn files(value: &JsValue) -> JsResult<BTreeMap<String, String>> {
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(type_error(format!(
            "files must be an object mapping paths to texts, got {}",
            type_name(value)
        )));
    }
    let object: &js_sys::Object = value.unchecked_ref();
    let mut out = BTreeMap::new();
    for entry in js_sys::Object::entries(object).iter() {
        let pair: js_sys::Array = entry.unchecked_into();
        let path = pair.get(0).as_string().unwrap_or_default();
        let text = pair.get(1);
        let Some(text) = text.as_string() else {
            return Err(type_error(format!(
                "files[{path:?}] must be a string, got {}",
                type_name(&text)
            )));
        };
        out.insert(path, text);
    }
    Ok(out)
}

/// A required string argument (wasm-bindgen would turn other values into
/// text silently).
pub fn string(value: &JsValue, what: &str) -> JsResult<String> {
    value
        .as_string()
        .ok_or_else(|| type_error(format!("{what} must be a string, got {}", type_name(value))))
}

/// `typeof`, with `null` and arrays told apart, for messages.
fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    }
}

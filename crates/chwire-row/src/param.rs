//! Rust values bound to `{name:Type}` query placeholders: their text as a server-side
//! parameter, and as an SQL literal for servers without server-side parameters.

/// A value that can be bound to a `{name:Type}` placeholder.
pub trait QueryParam {
    /// The value as text in ClickHouse's escaped (TSV) form, as the server parses a
    /// server-side parameter.
    fn param_text(&self) -> String;
    /// The value as an SQL literal, for servers without server-side parameters.
    fn sql_literal(&self) -> String;
}

macro_rules! plain_number {
    ($($t:ty),*) => {$(
        impl QueryParam for $t {
            fn param_text(&self) -> String {
                self.to_string()
            }
            fn sql_literal(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
plain_number!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

macro_rules! float {
    ($($t:ty => $reinterpret:literal),*) => {$(
        impl QueryParam for $t {
            fn param_text(&self) -> String {
                if self.is_nan() { "nan".into() } else if self.is_infinite() { if *self > 0.0 { "inf".into() } else { "-inf".into() } } else { format!("{self:?}") }
            }
            fn sql_literal(&self) -> String {
                // nan/inf are literals ClickHouse accepts; others print exactly (Debug keeps
                // precision). Older parsers (18.16) refuse a subnormal literal such as 5e-324
                // (strtod's range error) and read `toFloat64('5e-324')` as 0: its bytes instead
                // (reinterpreting a string, the one argument 18.16 reinterprets as a float).
                if self.is_subnormal() {
                    let hex: String = self.to_le_bytes().iter().map(|b| format!("{b:02X}")).collect();
                    format!(concat!($reinterpret, "(unhex('{}'))"), hex)
                } else {
                    self.param_text()
                }
            }
        }
    )*};
}
float!(f32 => "reinterpretAsFloat32", f64 => "reinterpretAsFloat64");

impl QueryParam for bool {
    /// `1`/`0`, which the server parses as Bool and as every integer type alike (`true` is
    /// no UInt8).
    fn param_text(&self) -> String {
        if *self { "1" } else { "0" }.into()
    }
    fn sql_literal(&self) -> String {
        if *self { "1" } else { "0" }.into()
    }
}

impl QueryParam for str {
    fn param_text(&self) -> String {
        let mut out = String::with_capacity(self.len());
        chwire_proto::sql::escape_into(&mut out, self, None);
        out
    }
    fn sql_literal(&self) -> String {
        chwire_proto::sql::quote_string(self)
    }
}

impl QueryParam for String {
    fn param_text(&self) -> String {
        self.as_str().param_text()
    }
    fn sql_literal(&self) -> String {
        self.as_str().sql_literal()
    }
}

impl<T: QueryParam + ?Sized> QueryParam for &T {
    fn param_text(&self) -> String {
        (**self).param_text()
    }
    fn sql_literal(&self) -> String {
        (**self).sql_literal()
    }
}

impl<T: QueryParam> QueryParam for Option<T> {
    fn param_text(&self) -> String {
        match self {
            Some(v) => v.param_text(),
            None => "\\N".into(),
        }
    }
    fn sql_literal(&self) -> String {
        match self {
            Some(v) => v.sql_literal(),
            None => "NULL".into(),
        }
    }
}

impl<T: QueryParam> QueryParam for Vec<T> {
    fn param_text(&self) -> String {
        self.as_slice().param_text()
    }
    fn sql_literal(&self) -> String {
        self.as_slice().sql_literal()
    }
}

impl<T: QueryParam> QueryParam for [T] {
    fn param_text(&self) -> String {
        // ClickHouse reads an array parameter's text as an array literal (elements quoted),
        // without a further level of escaping.
        self.sql_literal()
    }
    fn sql_literal(&self) -> String {
        format!("[{}]", self.iter().map(QueryParam::sql_literal).collect::<Vec<_>>().join(","))
    }
}

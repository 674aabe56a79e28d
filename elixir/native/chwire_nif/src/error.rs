//! Everything that can fail below the Elixir surface, and its `%Chwire.Error{}` term.

use chwire::ErrorKind;
use rustler::{Atom, Encoder, Env, Term};

#[derive(Debug)]
pub enum NifError {
    Client(chwire::Error),
    /// An Arrow conversion or IPC stream that failed.
    Arrow(String),
    /// A value or argument chwire cannot use (nothing was sent).
    Data(String),
    /// A Rust panic, caught at the NIF boundary or in a task.
    Panic(String),
    /// The connection or pool was closed.
    Closed,
}

impl From<chwire::Error> for NifError {
    fn from(e: chwire::Error) -> Self {
        NifError::Client(e)
    }
}

impl From<chwire_arrow::Error> for NifError {
    fn from(e: chwire_arrow::Error) -> Self {
        NifError::Arrow(e.to_string())
    }
}

impl From<arrow_schema::ArrowError> for NifError {
    fn from(e: arrow_schema::ArrowError) -> Self {
        NifError::Arrow(e.to_string())
    }
}

impl From<chwire::proto::EncodeError> for NifError {
    fn from(e: chwire::proto::EncodeError) -> Self {
        NifError::Data(e.to_string())
    }
}

impl NifError {
    /// (kind, code, name, message) of the error.
    fn parts(&self) -> (&'static str, Option<i32>, String, String) {
        match self {
            NifError::Client(e) => {
                let text = e.to_string();
                match e.kind() {
                    ErrorKind::Server(s) => {
                        let name = s.name().to_owned();
                        ("server", Some(s.code), name, s.text().to_owned())
                    }
                    ErrorKind::Timeout(_) => ("timeout", None, "TIMEOUT".into(), text),
                    ErrorKind::Io(_) | ErrorKind::Closed => ("connection", None, "CONNECTION".into(), text),
                    ErrorKind::Tls(_) => ("tls", None, "TLS".into(), text),
                    ErrorKind::Decode(_) | ErrorKind::Protocol(_) => ("protocol", None, "PROTOCOL".into(), text),
                    ErrorKind::Config(_) => ("config", None, "CONFIG".into(), text),
                    ErrorKind::InvalidInput(_) | ErrorKind::Row(_) => ("data", None, "DATA".into(), text),
                    ErrorKind::ResultTooLarge(chwire::ResultLimit::Rows(_)) => ("limit", None, "MAX_ROWS_EXCEEDED".into(), text),
                    ErrorKind::ResultTooLarge(_) => ("limit", None, "MAX_BYTES_EXCEEDED".into(), text),
                    _ => ("client", None, "CLIENT".into(), text),
                }
            }
            NifError::Arrow(m) => ("arrow", None, "ARROW".into(), format!("Arrow: {m}")),
            NifError::Data(m) => ("data", None, "DATA".into(), m.clone()),
            NifError::Panic(m) => ("panic", None, "PANIC".into(), format!("chwire panicked (a bug; the VM is fine): {m}")),
            NifError::Closed => ("closed", None, "CLOSED".into(), "the connection is closed".into()),
        }
    }

    /// `%Chwire.Error{kind, code, name, message, rows_inserted}`.
    pub fn to_term<'a>(&self, env: Env<'a>) -> Term<'a> {
        let (kind, code, name, message) = self.parts();
        // Data an insert refused: the rows before it, committed (the core's rule).
        let rows_inserted = match self {
            NifError::Client(e) => e.rows_inserted(),
            _ => None,
        };
        let keys = [
            crate::atoms::__struct__().encode(env),
            crate::atoms::__exception__().encode(env),
            crate::atoms::kind().encode(env),
            crate::atoms::code().encode(env),
            crate::atoms::name().encode(env),
            crate::atoms::message().encode(env),
            crate::atoms::rows_inserted().encode(env),
        ];
        let values = [
            Atom::from_str(env, "Elixir.Chwire.Error").map_or_else(|_| crate::atoms::nil().encode(env), |a| a.encode(env)),
            true.encode(env),
            Atom::from_str(env, kind).map_or_else(|_| crate::atoms::nil().encode(env), |a| a.encode(env)),
            code.map_or_else(|| crate::atoms::nil().encode(env), |c| c.encode(env)),
            name.encode(env),
            message.encode(env),
            rows_inserted.map_or_else(|| crate::atoms::nil().encode(env), |n| n.encode(env)),
        ];
        Term::map_from_term_arrays(env, &keys, &values).unwrap_or_else(|_| message.encode(env))
    }

    /// `{:error, %Chwire.Error{}}`.
    pub fn to_error_tuple<'a>(&self, env: Env<'a>) -> Term<'a> {
        (crate::atoms::error(), self.to_term(env)).encode(env)
    }
}

/// The message of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".into()
    }
}

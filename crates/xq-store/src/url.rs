//! Storage URLs: where a stage reads or writes, as the user typed it.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

/// Why a string is not a storage URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The text is empty.
    #[error("empty storage location")]
    Empty,
    /// A `scheme://` this crate does not serve.
    #[error("{url}: unsupported scheme {scheme:?} (use s3://, gs://, az://, file:// or a plain path)")]
    UnsupportedScheme {
        /// The URL as given.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// An object-store URL without a bucket (or container).
    #[error("{url}: no bucket name after the scheme")]
    NoBucket {
        /// The URL as given.
        url: String,
    },
    /// A `file://` URL that is not `file:///absolute/path` (or `file://localhost/...`).
    #[error("{url}: a file URL needs an absolute path, as in file:///data/xq")]
    FileNotAbsolute {
        /// The URL as given.
        url: String,
    },
    /// A prefix or key with an empty, `.` or `..` segment, or a character keys may not hold.
    #[error("{text:?}: {reason}")]
    BadPath {
        /// The offending prefix or key.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The working directory, needed to make a relative path absolute, cannot be read.
    #[error("cannot read the working directory to resolve {path:?}: {detail}")]
    NoWorkingDirectory {
        /// The relative path.
        path: String,
        /// The I/O error.
        detail: String,
    },
}

/// A storage location: a directory on the local file system or a prefix in a bucket.
///
/// Parsed from what users type after `--out`, `--data`, `--model` and the like:
/// - a plain path (`data/run1`, `/srv/xq`) or `file:///srv/xq`: the local file system, so every
///   existing command line keeps working with no server;
/// - `s3://bucket/prefix` (also `s3a://`): Amazon S3 or any S3-compatible server;
/// - `gs://bucket/prefix`: Google Cloud Storage;
/// - `az://container/prefix`: Azure Blob Storage.
///
/// Credentials, endpoints and regions never appear here: they come from the environment
/// (`AWS_*`, `GOOGLE_*`, `AZURE_*`), see [`crate::Store::open`]. URLs are not percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StoreUrl {
    /// A directory on this machine (absolute, `.` and `..` removed lexically).
    Local(PathBuf),
    /// A prefix in an S3 bucket.
    S3 {
        /// The bucket.
        bucket: String,
        /// `/`-separated prefix inside it, without leading or trailing `/` (empty: the bucket).
        prefix: String,
    },
    /// A prefix in a Google Cloud Storage bucket.
    Gcs {
        /// The bucket.
        bucket: String,
        /// As for S3.
        prefix: String,
    },
    /// A prefix in an Azure Blob Storage container (account from `AZURE_STORAGE_ACCOUNT_NAME`).
    Azure {
        /// The container.
        container: String,
        /// As for S3.
        prefix: String,
    },
}

/// Checks one `/`-separated relative path (a key or a prefix): no empty, `.` or `..` segment,
/// no leading or trailing `/`, no backslash, `#`, control or non-ASCII character.
///
/// `#` is refused because the local backend stages files as `<name>#<n>`; non-ASCII because
/// S3, GCS and Azure sort and encode keys differently beyond it.
///
/// # Errors
/// [`UrlError::BadPath`] naming the problem.
pub fn validate_key(key: &str) -> Result<(), UrlError> {
    let bad = |reason| Err(UrlError::BadPath { text: key.to_string(), reason });
    if key.is_empty() {
        return bad("empty key");
    }
    if key.starts_with('/') || key.ends_with('/') {
        return bad("a key neither starts nor ends with '/'");
    }
    for segment in key.split('/') {
        match segment {
            "" => return bad("empty segment ('//')"),
            "." | ".." => return bad("'.' and '..' segments are not allowed"),
            _ => {}
        }
    }
    if !key.bytes().all(|b| b.is_ascii_graphic() && b != b'\\' && b != b'#') {
        return bad("only printable ASCII without '\\' and '#' is allowed");
    }
    Ok(())
}

fn split_bucket(url: &str, rest: &str) -> Result<(String, String), UrlError> {
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(UrlError::NoBucket { url: url.to_string() });
    }
    let prefix = prefix.trim_end_matches('/');
    if !prefix.is_empty() {
        validate_key(prefix)?;
    }
    if !bucket.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') {
        return Err(UrlError::BadPath { text: bucket.to_string(), reason: "not a bucket name" });
    }
    Ok((bucket.to_string(), prefix.to_string()))
}

/// `path` made absolute against the working directory, with `.` and `..` removed lexically
/// (symbolic links are left alone, and the path need not exist).
fn absolute(path: &Path) -> Result<PathBuf, UrlError> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let cwd = std::env::current_dir().map_err(|e| UrlError::NoWorkingDirectory {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    Ok(out)
}

impl StoreUrl {
    /// Parses a storage location (see the type's documentation for the accepted forms).
    ///
    /// # Errors
    /// [`UrlError`] for an empty text, an unknown scheme, a missing bucket, a relative
    /// `file://` URL or a prefix with empty, `.` or `..` segments.
    pub fn parse(text: &str) -> Result<StoreUrl, UrlError> {
        if text.is_empty() {
            return Err(UrlError::Empty);
        }
        let Some((scheme, rest)) = text.split_once("://") else {
            return Ok(StoreUrl::Local(absolute(Path::new(text))?));
        };
        // A plain relative path may contain "://" only after a '/', e.g. "runs/a://b"; a scheme
        // is letters, digits and + - . only.
        if scheme.is_empty()
            || !scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
        {
            return Ok(StoreUrl::Local(absolute(Path::new(text))?));
        }
        match scheme.to_ascii_lowercase().as_str() {
            "file" => {
                let path = rest.strip_prefix("localhost").unwrap_or(rest);
                if !path.starts_with('/') {
                    return Err(UrlError::FileNotAbsolute { url: text.to_string() });
                }
                Ok(StoreUrl::Local(absolute(Path::new(path))?))
            }
            "s3" | "s3a" => {
                let (bucket, prefix) = split_bucket(text, rest)?;
                Ok(StoreUrl::S3 { bucket, prefix })
            }
            "gs" => {
                let (bucket, prefix) = split_bucket(text, rest)?;
                Ok(StoreUrl::Gcs { bucket, prefix })
            }
            "az" => {
                let (container, prefix) = split_bucket(text, rest)?;
                Ok(StoreUrl::Azure { container, prefix })
            }
            _ => Err(UrlError::UnsupportedScheme { url: text.to_string(), scheme: scheme.to_string() }),
        }
    }

    /// A local directory as a location (made absolute against the working directory).
    ///
    /// # Errors
    /// [`UrlError::NoWorkingDirectory`] if `path` is relative and the working directory is gone.
    pub fn from_path(path: &Path) -> Result<StoreUrl, UrlError> {
        Ok(StoreUrl::Local(absolute(path)?))
    }

    /// The location `key` below this one (`s3://b/runs` + `r1/data` = `s3://b/runs/r1/data`).
    ///
    /// # Errors
    /// [`UrlError::BadPath`] if `key` is not a valid key (see [`validate_key`]).
    pub fn join(&self, key: &str) -> Result<StoreUrl, UrlError> {
        validate_key(key)?;
        let join = |prefix: &str| if prefix.is_empty() { key.to_string() } else { format!("{prefix}/{key}") };
        Ok(match self {
            StoreUrl::Local(path) => StoreUrl::Local(path.join(key)),
            StoreUrl::S3 { bucket, prefix } => StoreUrl::S3 { bucket: bucket.clone(), prefix: join(prefix) },
            StoreUrl::Gcs { bucket, prefix } => {
                StoreUrl::Gcs { bucket: bucket.clone(), prefix: join(prefix) }
            }
            StoreUrl::Azure { container, prefix } => {
                StoreUrl::Azure { container: container.clone(), prefix: join(prefix) }
            }
        })
    }

    /// The scheme as written in URLs: `file`, `s3`, `gs` or `az`.
    pub fn scheme(&self) -> &'static str {
        match self {
            StoreUrl::Local(_) => "file",
            StoreUrl::S3 { .. } => "s3",
            StoreUrl::Gcs { .. } => "gs",
            StoreUrl::Azure { .. } => "az",
        }
    }

    /// Whether this is a directory on the local file system.
    pub fn is_local(&self) -> bool {
        matches!(self, StoreUrl::Local(_))
    }

    /// The local directory, for [`StoreUrl::Local`].
    pub fn local_path(&self) -> Option<&Path> {
        match self {
            StoreUrl::Local(path) => Some(path),
            _ => None,
        }
    }
}

impl FromStr for StoreUrl {
    type Err = UrlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StoreUrl::parse(s)
    }
}

impl fmt::Display for StoreUrl {
    /// A local location shows as its path (as users typed it before URLs existed); the others
    /// as `scheme://bucket/prefix`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (bucket, prefix) = match self {
            StoreUrl::Local(path) => return write!(f, "{}", path.display()),
            StoreUrl::S3 { bucket, prefix } | StoreUrl::Gcs { bucket, prefix } => (bucket, prefix),
            StoreUrl::Azure { container, prefix } => (container, prefix),
        };
        if prefix.is_empty() {
            write!(f, "{}://{bucket}", self.scheme())
        } else {
            write!(f, "{}://{bucket}/{prefix}", self.scheme())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_store_urls_split_into_bucket_and_prefix() {
        assert_eq!(
            StoreUrl::parse("s3://xq-runs/r1/data/").unwrap(),
            StoreUrl::S3 { bucket: "xq-runs".into(), prefix: "r1/data".into() }
        );
        assert_eq!(
            StoreUrl::parse("s3a://b").unwrap(),
            StoreUrl::S3 { bucket: "b".into(), prefix: "".into() }
        );
        assert_eq!(
            StoreUrl::parse("gs://g/x").unwrap(),
            StoreUrl::Gcs { bucket: "g".into(), prefix: "x".into() }
        );
        assert_eq!(
            StoreUrl::parse("az://c/y/z").unwrap(),
            StoreUrl::Azure { container: "c".into(), prefix: "y/z".into() }
        );
        assert_eq!(StoreUrl::parse("S3://b/p").unwrap().to_string(), "s3://b/p");
    }

    #[test]
    fn plain_paths_and_file_urls_are_local_and_absolute() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(StoreUrl::parse("data/run1").unwrap(), StoreUrl::Local(cwd.join("data/run1")));
        assert_eq!(StoreUrl::parse("./data/../models").unwrap(), StoreUrl::Local(cwd.join("models")));
        assert_eq!(StoreUrl::parse("/srv/xq/").unwrap(), StoreUrl::Local(PathBuf::from("/srv/xq")));
        assert_eq!(StoreUrl::parse("file:///srv/xq").unwrap(), StoreUrl::Local(PathBuf::from("/srv/xq")));
        assert_eq!(StoreUrl::parse("file://localhost/srv").unwrap(), StoreUrl::Local(PathBuf::from("/srv")));
        assert!(StoreUrl::parse("/srv/xq").unwrap().is_local());
        assert_eq!(StoreUrl::parse("/srv/xq").unwrap().to_string(), "/srv/xq");
        // Not a scheme: a relative path that happens to hold "://" after a slash.
        assert!(StoreUrl::parse("runs/a://b").unwrap().is_local());
    }

    #[test]
    fn bad_urls_are_named() {
        assert_eq!(StoreUrl::parse(""), Err(UrlError::Empty));
        assert!(matches!(StoreUrl::parse("http://x/y"), Err(UrlError::UnsupportedScheme { .. })));
        assert!(matches!(StoreUrl::parse("s3:///p"), Err(UrlError::NoBucket { .. })));
        assert!(matches!(StoreUrl::parse("file://host/p"), Err(UrlError::FileNotAbsolute { .. })));
        assert!(matches!(StoreUrl::parse("s3://b/a//c"), Err(UrlError::BadPath { .. })));
        assert!(matches!(StoreUrl::parse("s3://b/a/../c"), Err(UrlError::BadPath { .. })));
    }

    #[test]
    fn keys_are_checked() {
        for good in ["a", "selfplay/g003/manifests/w1-b000001.json", "x=1/y+2/.hidden", "A-b_c.d"] {
            assert_eq!(validate_key(good), Ok(()), "{good}");
        }
        for bad in ["", "/a", "a/", "a//b", "a/./b", "../a", "a b", "a#1", "a\\b", "é"] {
            assert!(validate_key(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn join_appends_a_key() {
        let url = StoreUrl::parse("s3://b").unwrap().join("runs/r1").unwrap();
        assert_eq!(url.to_string(), "s3://b/runs/r1");
        assert_eq!(url.join("data").unwrap().to_string(), "s3://b/runs/r1/data");
        assert_eq!(
            StoreUrl::parse("/srv").unwrap().join("r1/x").unwrap(),
            StoreUrl::Local(PathBuf::from("/srv/r1/x"))
        );
        assert!(url.join("../x").is_err());
    }
}

//! An engine subprocess: line-based I/O with a reader thread, and a timeout on every wait.

use crate::player::PlayerError;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long a process is given to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// A running engine. Dropping it asks the engine to quit and kills it if it does not.
pub(crate) struct Process {
    program: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    /// Starts `program` with `args`, stdin and stdout piped, stderr discarded.
    pub(crate) fn spawn(program: &Path, args: &[String]) -> Result<Process, PlayerError> {
        let name = program.display().to_string();
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| PlayerError::Spawn { program: name.clone(), source })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(PlayerError::Crashed(format!("{name}: no pipes to the engine")));
        };
        let (sender, lines) = channel();
        // The reader ends at end of file (the engine exited or was killed) or when the
        // receiving side is gone; its end disconnects the channel, which is how a crash shows.
        std::thread::Builder::new()
            .name(format!("engine-reader {name}"))
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match reader.read_until(b'\n', &mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buffer).trim().to_string();
                            if sender.send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(PlayerError::Io)?;
        Ok(Process { program: name, child, stdin, lines })
    }

    /// Sends one line. A broken pipe means the engine is gone.
    pub(crate) fn send(&mut self, line: &str) -> Result<(), PlayerError> {
        let result = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        result.map_err(|e| {
            let note = self.exit_note();
            PlayerError::Crashed(format!("{}: cannot write to the engine ({e}){note}", self.program))
        })
    }

    /// Reads lines until `accept` returns a value, for at most `timeout`. On timeout the
    /// engine is killed (it is hung); at end of output it has crashed.
    pub(crate) fn wait_for<T>(
        &mut self,
        timeout: Duration,
        context: &str,
        mut accept: impl FnMut(&str) -> Option<T>,
    ) -> Result<T, PlayerError> {
        let deadline = Instant::now() + timeout;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(remaining) {
                Ok(line) => {
                    if let Some(value) = accept(&line) {
                        return Ok(value);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(PlayerError::Timeout { waited: timeout, context: context.to_string() });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let note = self.exit_note();
                    return Err(PlayerError::Crashed(format!(
                        "{}: the engine closed its output while {context}{note}",
                        self.program
                    )));
                }
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// ", exit status …" when the process has exited (briefly waiting for it to do so).
    fn exit_note(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(50);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!(", {status}"),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return String::new(),
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

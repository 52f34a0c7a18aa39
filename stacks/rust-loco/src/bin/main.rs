//! The server binary. With no arguments (how the image runs it) it starts the
//! server in the environment LOCO_ENV names; with arguments it is Loco's CLI
//! (`routes`, `middleware`, `doctor`, ...).
use std::{env, num::NonZeroUsize};

use loco_rs::cli;
use migration::Migrator;
use stacklab_loco::app::{self, App};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPUs given by the lab (LAB_CPUS), else the CPUs this process may run on.
fn cpus() -> usize {
    match env::var("LAB_CPUS") {
        Ok(v) => v.trim().parse::<usize>().ok().filter(|n| *n > 0).unwrap_or_else(|| {
            eprintln!("LAB_CPUS={v:?} is not a positive integer");
            std::process::exit(2)
        }),
        Err(_) => std::thread::available_parallelism().map(NonZeroUsize::get).unwrap_or(1),
    }
}

fn main() -> loco_rs::Result<()> {
    let cpus = cpus();
    // config/production.yaml sizes the pool from DB_MAX_CONNECTIONS and
    // DB_MIN_CONNECTIONS (the generator's names); their default here is two
    // connections per CPU, all opened at start. Set before any thread exists.
    for key in ["DB_MAX_CONNECTIONS", "DB_MIN_CONNECTIONS"] {
        if env::var_os(key).is_none() {
            // SAFETY: single-threaded: the runtime is not built yet.
            unsafe { env::set_var(key, (2 * cpus).to_string()) };
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cpus)
        .enable_all()
        .build()?;
    if env::args_os().len() > 1 {
        runtime.block_on(cli::main::<App, Migrator>())
    } else {
        runtime.block_on(app::start())
    }
}

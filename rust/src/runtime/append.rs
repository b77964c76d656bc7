//! Appending to a byte vector from several threads at once, without zero-filling first.
//!
//! The collector records every step's observation batch (hundreds of KB) into its rollout.
//! Each sub-env's job copies its own frame straight into the vector's spare capacity, so the
//! copy runs in parallel and nothing is written twice. Those bytes may only become part of the
//! vector once every chunk has been written: a job proves it wrote its chunk by returning the
//! [`Filled`] token that only [`Spare::fill_from`] makes, and the token is branded with the
//! lifetime of this call's chunks, so no token from elsewhere can stand in for it.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use crate::runtime::executor::Executor;
use crate::support::error::Result;

/// An invariant lifetime: tokens of one call cannot be passed off as another call's.
type Brand<'s> = PhantomData<fn(&'s ()) -> &'s ()>;

/// One job's chunk of the vector's spare capacity, not yet written.
pub struct Spare<'s> {
    bytes: &'s mut [MaybeUninit<u8>],
}

/// Proof that a [`Spare`] chunk of the call branded `'s` was written in full.
pub struct Filled<'s> {
    _brand: Brand<'s>,
}

impl<'s> Spare<'s> {
    /// Writes `src` (exactly the chunk's length: panics otherwise) into the chunk.
    pub fn fill_from(self, src: &[u8]) -> Filled<'s> {
        assert_eq!(src.len(), self.bytes.len(), "a chunk is filled whole");
        for (d, &s) in self.bytes.iter_mut().zip(src) {
            d.write(s);
        }
        Filled {
            _brand: PhantomData,
        }
    }
}

/// Runs `work(job, chunk)` for every job on `executor`, where job `k` gets bytes
/// `[k * chunk_len, (k + 1) * chunk_len)` past the end of `vec`; if every job succeeds, those
/// `jobs.len() * chunk_len` bytes are appended. On any error `vec` is left as it was.
pub fn append_chunks<T: Send>(
    executor: &mut Executor,
    vec: &mut Vec<u8>,
    chunk_len: usize,
    jobs: Vec<T>,
    work: impl for<'s> Fn(T, Spare<'s>) -> Result<Filled<'s>> + Sync,
) -> Result<()> {
    let total = chunk_len
        .checked_mul(jobs.len())
        .expect("appended size overflows usize");
    vec.reserve(total);
    let spare = &mut vec.spare_capacity_mut()[..total];
    let paired: Vec<(T, Spare<'_>)> = if chunk_len == 0 {
        jobs.into_iter()
            .map(|j| (j, Spare { bytes: &mut [] }))
            .collect()
    } else {
        jobs.into_iter()
            .zip(spare.chunks_mut(chunk_len))
            .map(|(j, bytes)| (j, Spare { bytes }))
            .collect()
    };
    executor.run_batch(paired, |(job, chunk)| work(job, chunk).map(|_filled| ()))?;
    // SAFETY: `run_batch` returned Ok, so every job returned Ok with a `Filled` token of this
    // call's brand (the higher-ranked bound on `work` admits no other), which only `fill_from`
    // on its own chunk creates, and `fill_from` writes the whole chunk. The chunks tile the
    // first `total` spare bytes exactly, so all of them are initialized.
    unsafe { vec.set_len(vec.len() + total) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::error::Error;

    #[test]
    fn every_chunk_lands_in_order_after_the_old_bytes() {
        for threads in 1..=3 {
            let mut ex = Executor::new(threads).unwrap();
            let mut vec = vec![9u8; 3];
            let sources: Vec<Vec<u8>> = (0..5u8).map(|k| vec![k; 4]).collect();
            append_chunks(
                &mut ex,
                &mut vec,
                4,
                sources.iter().collect(),
                |src, chunk| Ok(chunk.fill_from(src)),
            )
            .unwrap();
            let mut expect = vec![9u8; 3];
            sources.iter().for_each(|s| expect.extend(s));
            assert_eq!(vec, expect);
        }
    }

    /// The hand-off without helper threads: Miri checks it with its aliasing model on
    /// (`make miri`; rayon's internals need that model off, see docs/architecture.md).
    #[test]
    fn single_thread_hand_off() {
        let mut ex = Executor::new(1).unwrap();
        let mut vec = Vec::with_capacity(2);
        vec.push(1u8);
        let sources = [[2u8, 3], [4, 5], [6, 7]];
        append_chunks(
            &mut ex,
            &mut vec,
            2,
            sources.iter().collect(),
            |src, chunk| Ok(chunk.fill_from(src)),
        )
        .unwrap();
        assert_eq!(vec, [1, 2, 3, 4, 5, 6, 7]);
        let err = append_chunks(&mut ex, &mut vec, 2, vec![0, 1], |k: i32, chunk| {
            let filled = chunk.fill_from(&[9, 9]);
            if k == 1 {
                return Err(Error::InvalidState("no".into()));
            }
            Ok(filled)
        });
        assert!(err.is_err());
        assert_eq!(vec.len(), 7);
    }

    #[test]
    fn a_failing_or_panicking_job_appends_nothing() {
        let mut ex = Executor::new(2).unwrap();
        let mut vec = vec![1u8, 2];
        let src = [7u8; 8];
        let err = append_chunks(&mut ex, &mut vec, 8, (0..4).collect(), |k: usize, chunk| {
            let filled = chunk.fill_from(&src);
            if k == 2 {
                return Err(Error::InvalidState("no".into()));
            }
            Ok(filled)
        });
        assert_eq!(err, Err(Error::InvalidState("no".into())));
        assert_eq!(vec, [1, 2]);
        // A wrong-length fill panics inside the job: an error, nothing appended.
        let err = append_chunks(&mut ex, &mut vec, 8, (0..4).collect(), |_: usize, chunk| {
            Ok(chunk.fill_from(&src[..3]))
        });
        assert!(matches!(err, Err(Error::Internal(_))), "{err:?}");
        assert_eq!(vec, [1, 2]);
    }

    #[test]
    fn empty_chunks_and_no_jobs_are_fine() {
        let mut ex = Executor::new(2).unwrap();
        let mut vec = vec![5u8];
        append_chunks(&mut ex, &mut vec, 0, vec![(), ()], |(), c| {
            Ok(c.fill_from(&[]))
        })
        .unwrap();
        append_chunks(&mut ex, &mut vec, 16, Vec::<()>::new(), |(), c| {
            Ok(c.fill_from(&[0; 16]))
        })
        .unwrap();
        assert_eq!(vec, [5]);
    }
}

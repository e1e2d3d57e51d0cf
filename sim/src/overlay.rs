//! A cluster's view of global memory: the launch's memory itself (clusters in order, one at a
//! time), or a copy-on-write overlay over a snapshot of it (clusters in parallel).
//!
//! A launch means the sequential semantics: cluster `c` runs on global memory as clusters
//! `0..c` left it (see [`crate::parallel`]). A cluster run in parallel reads a snapshot
//! taken before its predecessors finished, so its overlay records what it read (bytes it had
//! not written itself) and what it wrote, per byte, in pages of [`PAGE`] bytes. Its run is the
//! sequential one exactly when no byte it read was written by a predecessor it ran beside:
//! the committer checks that, and runs the cluster again in order when it is not so.

use super::memory::{Buffer, Global, GlobalFault, GlobalLoc};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Bytes per page of an overlay.
pub(crate) const PAGE: usize = 4096;
const WORDS: usize = PAGE / 64;

/// One bit per byte of a page.
pub(crate) type Bits = [u64; WORDS];

/// Hashes page keys (one `u64`) with one multiplication: the keys are not adversarial, and
/// a lookup happens whenever an access leaves the page of the one before.
#[derive(Default, Clone, Copy)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        // The table indexes by the low bits: fold the well-mixed high bits into them.
        self.0 ^ self.0 >> 32
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (k ^ k >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map from page keys.
pub(crate) type PageMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// What a cluster did to one page of a buffer.
pub(crate) struct Page {
    /// The page as the cluster sees it, once it wrote to it (the snapshot's bytes elsewhere).
    data: Option<Box<[u8; PAGE]>>,
    /// Bytes read before the cluster wrote them: the run depends on their value.
    pub read: Bits,
    /// Bytes written.
    pub written: Bits,
}

/// Page key: buffer index and page number.
pub(crate) fn key(buffer: usize, page: usize) -> u64 {
    (buffer as u64) << 40 | page as u64
}

fn unkey(k: u64) -> (usize, usize) {
    ((k >> 40) as usize, (k & ((1 << 40) - 1)) as usize)
}

/// Calls `f(word, mask)` for the words of a bit set that bits `[start, start + len)` touch.
#[inline]
fn each_word(start: usize, len: usize, mut f: impl FnMut(usize, u64)) {
    let end = start + len;
    let mut i = start;
    while i < end {
        let word = i / 64;
        let lo = i % 64;
        let hi = (end - word * 64).min(64);
        let m = if hi - lo == 64 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        f(word, m);
        i = word * 64 + hi;
    }
}

/// Sets bits `[start, start + len)` of `bits`.
pub(crate) fn set_bits(bits: &mut Bits, start: usize, len: usize) {
    each_word(start, len, |w, m| bits[w] |= m);
}

impl Page {
    /// Marks `[start, start + len)` read, but for the bytes the cluster wrote itself.
    #[inline]
    fn mark_read(&mut self, start: usize, len: usize) {
        each_word(start, len, |w, m| self.read[w] |= m & !self.written[w]);
    }
}

/// The bytes of a parallel run: reads and writes per page, and what it needs of the launch.
#[derive(Default)]
pub(crate) struct Footprint {
    pub pages: Vec<(u64, Box<Page>)>,
}

impl Footprint {
    /// Whether the run read a byte that `dirty` (bytes its predecessors wrote since its
    /// snapshot) holds.
    pub(crate) fn reads_any(&self, dirty: &PageMap<Box<Bits>>) -> bool {
        self.pages.iter().any(|(k, p)| {
            dirty
                .get(k)
                .is_some_and(|d| d.iter().zip(p.read.iter()).any(|(a, b)| a & b != 0))
        })
    }

    /// The bytes the footprint holds: its pages' bit sets and the data of those written.
    pub(crate) fn bytes(&self) -> usize {
        self.pages
            .iter()
            .map(|(_, p)| size_of::<Page>() + if p.data.is_some() { PAGE } else { 0 })
            .sum()
    }

    /// Writes the run's bytes into `global` and adds them to `dirty`.
    pub(crate) fn commit(self, global: &mut Global, dirty: &mut PageMap<Box<Bits>>) {
        for (k, page) in self.pages {
            let Some(data) = page.data else { continue };
            let (b, p) = unkey(k);
            let bytes = &mut global.buffers[b].bytes[p * PAGE..];
            let d = dirty.entry(k).or_insert_with(|| Box::new([0; WORDS]));
            for (w, &bits) in page.written.iter().enumerate() {
                if bits == 0 {
                    continue;
                }
                d[w] |= bits;
                let at = w * 64;
                if bits == u64::MAX {
                    bytes[at..at + 64].copy_from_slice(&data[at..at + 64]);
                } else {
                    let mut m = bits;
                    while m != 0 {
                        let i = at + m.trailing_zeros() as usize;
                        bytes[i] = data[i];
                        m &= m - 1;
                    }
                }
            }
        }
    }
}

/// A copy-on-write view of a snapshot of global memory (module docs).
pub(crate) struct Overlay<'a> {
    base: &'a Global,
    /// A speculative run may give up (a warp polls global memory without end: it may wait for
    /// a cluster that runs after it); a run in order never does.
    pub speculative: bool,
    last: usize,
    index: PageMap<u32>,
    pages: Vec<(u64, Box<Page>)>,
    /// The page the last access hit: accesses of a warp mostly stay in one page.
    hot: (u64, u32),
}

impl<'a> Overlay<'a> {
    pub(crate) fn new(base: &'a Global, speculative: bool) -> Overlay<'a> {
        Overlay {
            base,
            speculative,
            last: 0,
            index: PageMap::default(),
            pages: Vec::new(),
            hot: (u64::MAX, 0),
        }
    }

    pub(crate) fn finish(self) -> Footprint {
        Footprint { pages: self.pages }
    }

    fn page(&mut self, k: u64) -> &mut Page {
        if self.hot.0 != k {
            let next = self.pages.len() as u32;
            let i = *self.index.entry(k).or_insert(next);
            if i == next {
                self.pages.push((
                    k,
                    Box::new(Page {
                        data: None,
                        read: [0; WORDS],
                        written: [0; WORDS],
                    }),
                ));
            }
            self.hot = (k, i);
        }
        &mut self.pages[self.hot.1 as usize].1
    }

    /// Calls `f(page, offset in page, offset in the access, length)` for each page the
    /// `len` bytes at `loc` cover.
    fn chunks(loc: GlobalLoc, len: usize, mut f: impl FnMut(usize, usize, usize, usize)) {
        let mut done = 0;
        while done < len {
            let at = loc.offset + done;
            let (p, o) = (at / PAGE, at % PAGE);
            let n = (PAGE - o).min(len - done);
            f(p, o, done, n);
            done += n;
        }
    }

    pub(crate) fn read(&mut self, loc: GlobalLoc, out: &mut [u8]) {
        let base = self.base;
        let buffer = &base.buffers[loc.buffer];
        if buffer.read_only {
            // No cluster writes it: nothing to track.
            out.copy_from_slice(&buffer.bytes[loc.offset..loc.offset + out.len()]);
            return;
        }
        Self::chunks(loc, out.len(), |p, o, at, n| {
            let page = self.page(key(loc.buffer, p));
            page.mark_read(o, n);
            let src = match &page.data {
                Some(d) => &d[o..o + n],
                None => &base.buffers[loc.buffer].bytes[p * PAGE + o..p * PAGE + o + n],
            };
            out[at..at + n].copy_from_slice(src);
        });
    }

    pub(crate) fn write(&mut self, loc: GlobalLoc, bytes: &[u8]) {
        let base = self.base;
        Self::chunks(loc, bytes.len(), |p, o, at, n| {
            let page = self.page(key(loc.buffer, p));
            let data = page.data.get_or_insert_with(|| {
                let mut d = Box::new([0u8; PAGE]);
                let src = &base.buffers[loc.buffer].bytes;
                let from = &src[p * PAGE..src.len().min((p + 1) * PAGE)];
                d[..from.len()].copy_from_slice(from);
                d
            });
            data[o..o + n].copy_from_slice(&bytes[at..at + n]);
            set_bits(&mut page.written, o, n);
        });
    }
}

/// The global memory of a run whose inputs are made up (the analyzer's witness runs,
/// [`crate::probe`]): every address holds bytes, [`OpenMemory::fill`] until written, kept in pages of
/// [`PAGE`] bytes. Its locations are `GlobalLoc { buffer: OPEN, offset: address }`.
#[derive(Default)]
pub(crate) struct OpenMemory {
    pages: PageMap<Box<[u8; PAGE]>>,
    /// The byte every address holds until written.
    pub fill: u8,
}

/// The buffer index of every location in an [`OpenMemory`].
pub(crate) const OPEN: usize = usize::MAX;

impl OpenMemory {
    /// Memory whose every byte is `fill` until written.
    pub(crate) fn filled(fill: u8) -> OpenMemory {
        OpenMemory {
            pages: PageMap::default(),
            fill,
        }
    }

    fn read(&self, addr: usize, out: &mut [u8]) {
        Overlay::chunks(
            GlobalLoc {
                buffer: OPEN,
                offset: addr,
            },
            out.len(),
            |p, o, at, n| match self.pages.get(&(p as u64)) {
                Some(d) => out[at..at + n].copy_from_slice(&d[o..o + n]),
                None => out[at..at + n].fill(self.fill),
            },
        );
    }

    fn write(&mut self, addr: usize, bytes: &[u8]) {
        Overlay::chunks(
            GlobalLoc {
                buffer: OPEN,
                offset: addr,
            },
            bytes.len(),
            |p, o, at, n| {
                let d = self
                    .pages
                    .entry(p as u64)
                    .or_insert_with(|| Box::new([0; PAGE]));
                d[o..o + n].copy_from_slice(&bytes[at..at + n]);
            },
        );
    }
}

/// Global memory as one cluster's run sees it.
pub(crate) enum GlobalMem<'a> {
    /// The launch's memory: clusters run in order.
    Direct(&'a mut Global),
    /// A copy-on-write overlay: clusters run in parallel.
    Overlay(Box<Overlay<'a>>),
    /// Every address readable and writable, zero until written: a witness run's memory.
    Open(&'a mut OpenMemory),
}

impl GlobalMem<'_> {
    pub(crate) fn buffers(&self) -> &[Buffer] {
        match self {
            GlobalMem::Direct(g) => &g.buffers,
            GlobalMem::Overlay(o) => &o.base.buffers,
            GlobalMem::Open(_) => &[],
        }
    }

    /// The name of the buffer at `loc` when it is read-only (`.const` variables).
    pub(crate) fn read_only(&self, loc: GlobalLoc) -> Option<&str> {
        self.buffers()
            .get(loc.buffer)
            .filter(|b| b.read_only)
            .map(|b| b.name.as_str())
    }

    /// The address of `loc`.
    pub(crate) fn address(&self, loc: GlobalLoc) -> u64 {
        match self.buffers().get(loc.buffer) {
            Some(b) => b.base + loc.offset as u64,
            None => loc.offset as u64,
        }
    }

    /// Whether the run may give up (see [`Overlay::speculative`]).
    pub(crate) fn speculative(&self) -> bool {
        matches!(self, GlobalMem::Overlay(o) if o.speculative)
    }

    /// Finds the buffer holding `[addr, addr + len)`.
    #[inline]
    pub(crate) fn locate(&mut self, addr: u64, len: u32) -> Result<GlobalLoc, GlobalFault> {
        match self {
            GlobalMem::Direct(g) => g.locate(addr, len),
            GlobalMem::Overlay(o) => super::memory::locate(&o.base.buffers, &mut o.last, addr, len),
            GlobalMem::Open(_) => Ok(GlobalLoc {
                buffer: OPEN,
                offset: addr as usize,
            }),
        }
    }

    #[inline]
    pub(crate) fn read(&mut self, loc: GlobalLoc, out: &mut [u8]) {
        match self {
            GlobalMem::Direct(g) => copy16(out, g.bytes(loc, out.len())),
            GlobalMem::Overlay(o) => o.read(loc, out),
            GlobalMem::Open(m) => m.read(loc.offset, out),
        }
    }

    /// [`GlobalMem::read`] of a `cp.async` lane's source (4, 8 or 16 bytes, or fewer with a
    /// source size): [`copy_bytes`] for each size, where `read` takes only 16 bytes without
    /// `memcpy` (its other callers' sizes vary, and more arms there cost them more than they
    /// save).
    #[inline]
    pub(crate) fn read_lane(&mut self, loc: GlobalLoc, out: &mut [u8]) {
        match self {
            GlobalMem::Direct(g) => copy_bytes(out, g.bytes(loc, out.len())),
            GlobalMem::Overlay(o) => o.read(loc, out),
            GlobalMem::Open(m) => m.read(loc.offset, out),
        }
    }

    #[inline]
    pub(crate) fn write(&mut self, loc: GlobalLoc, bytes: &[u8]) {
        match self {
            GlobalMem::Direct(g) => copy16(g.bytes_mut(loc, bytes.len()), bytes),
            GlobalMem::Overlay(o) => o.write(loc, bytes),
            GlobalMem::Open(m) => m.write(loc.offset, bytes),
        }
    }

    pub(crate) fn read_vec(&mut self, loc: GlobalLoc, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.read(loc, &mut v);
        v
    }
}

/// `dst.copy_from_slice(src)`, a copy of 16, 8 or 4 bytes (a `cp.async` lane's: its global
/// read and its shared write) as one or two moves rather than a call to `memcpy`, whose
/// length is known only at run time (up to two calls a lane, 14 host instructions each in
/// `memcpy` and the calls' set-up beside: 1.3 % of the Triton softmax's).
#[inline(always)]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    // Unequal lengths panic as `copy_from_slice` does (in `copy_array`, `dst` is not `N` long).
    match src.len() {
        16 => copy_array::<16>(dst, src),
        8 => copy_array::<8>(dst, src),
        4 => copy_array::<4>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// `dst.copy_from_slice(src)`, a 16-byte copy (a TMA box's chunk, a vector access) as two
/// moves rather than a call to `memcpy`.
#[inline(always)]
fn copy16(dst: &mut [u8], src: &[u8]) {
    match (
        <&mut [u8; 16]>::try_from(&mut *dst),
        <&[u8; 16]>::try_from(src),
    ) {
        (Ok(d), Ok(s)) => *d = *s,
        _ => dst.copy_from_slice(src),
    }
}

/// [`copy_bytes`] of `N` bytes: both slices are `N` long.
#[inline(always)]
fn copy_array<const N: usize>(dst: &mut [u8], src: &[u8]) {
    let dst_len = dst.len();
    let (Ok(d), Ok(s)) = (<&mut [u8; N]>::try_from(dst), <&[u8; N]>::try_from(src)) else {
        panic!("copy_bytes: a destination of {} bytes for {N}", dst_len)
    };
    *d = *s;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_bytes` copies as `copy_from_slice` does, at every length up to 40 and every
    /// alignment of both slices (the fixed-size arms among them), and only the bytes asked.
    #[test]
    fn copy_bytes_copies_as_copy_from_slice() {
        let mut rng = crate::rng::Rng::new(31);
        let mut fixed = 0;
        for _ in 0..4000 {
            let len = rng.below(41) as usize;
            let (from, to) = (rng.below(8) as usize, rng.below(8) as usize);
            let src: Vec<u8> = (0..len + from).map(|_| rng.next_u64() as u8).collect();
            let before: Vec<u8> = (0..len + to + 8).map(|_| rng.next_u64() as u8).collect();
            let (mut a, mut b) = (before.clone(), before.clone());
            copy_bytes(&mut a[to..to + len], &src[from..from + len]);
            b[to..to + len].copy_from_slice(&src[from..from + len]);
            assert_eq!(a, b, "length {len}, source at {from}, destination at {to}");
            fixed += usize::from(matches!(len, 4 | 8 | 16));
        }
        assert!(fixed > 200, "the fixed-size arms were tried {fixed} times");
    }

    #[test]
    fn reads_of_own_writes_are_not_dependences() {
        let mut g = Global::new();
        g.alloc(vec![7; 3 * PAGE], false, "buffer".into());
        let mut o = Overlay::new(&g, true);
        let loc = GlobalLoc {
            buffer: 0,
            offset: PAGE - 2,
        };
        o.write(loc, &[1, 2, 3, 4]);
        let mut out = [0u8; 6];
        o.read(
            GlobalLoc {
                buffer: 0,
                offset: PAGE - 3,
            },
            &mut out,
        );
        assert_eq!(out, [7, 1, 2, 3, 4, 7]);
        let fp = o.finish();
        let mut dirty = PageMap::default();
        let mut other = [0u64; WORDS];
        set_bits(&mut other, PAGE - 2, 2);
        dirty.insert(key(0, 0), Box::new(other));
        assert!(
            !fp.reads_any(&dirty),
            "the cluster wrote those bytes before reading them"
        );
        let mut before = [0u64; WORDS];
        set_bits(&mut before, PAGE - 3, 1);
        dirty.insert(key(0, 0), Box::new(before));
        assert!(fp.reads_any(&dirty));
        let mut g2 = g.clone();
        let mut d2 = PageMap::default();
        fp.commit(&mut g2, &mut d2);
        assert_eq!(
            &g2.buffers[0].bytes[PAGE - 3..PAGE + 3],
            &[7, 1, 2, 3, 4, 7]
        );
        assert_eq!(d2.len(), 2);
    }

    #[test]
    fn bit_ranges() {
        let mut page = Page {
            data: None,
            read: [0; WORDS],
            written: [0; WORDS],
        };
        set_bits(&mut page.written, 60, 70);
        assert_eq!(page.written[0], 0xf << 60);
        assert_eq!(page.written[1], u64::MAX);
        assert_eq!(page.written[2], 0b11);
        page.mark_read(0, 192);
        assert_eq!(page.read[0], !(0xf << 60));
        assert_eq!(page.read[1], 0);
        assert_eq!(page.read[2], !0b11);
    }
}

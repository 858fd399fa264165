//! Several storages as one address space: the family driver's members laid end to end, and
//! the multi/split driver's members each holding a range of addresses.

use std::io;

use super::Storage;

/// The family driver's member files laid end to end, each `member_size` bytes except the
/// last.
#[derive(Debug)]
pub struct FamilyStorage {
    members: Vec<Box<dyn Storage>>,
    member_size: u64,
}

impl FamilyStorage {
    /// Members in order; every member but the last covers exactly `member_size` bytes of the
    /// address space (a shorter member reads as zeros past its end, as the family driver does).
    pub fn new(members: Vec<Box<dyn Storage>>, member_size: u64) -> io::Result<Self> {
        if member_size == 0 || members.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a family needs members of a positive size",
            ));
        }
        Ok(FamilyStorage {
            members,
            member_size,
        })
    }
}

impl Storage for FamilyStorage {
    fn len(&self) -> io::Result<u64> {
        let last = self.members.len() as u64 - 1;
        let last_len = self.members.last().map_or(Ok(0), |m| m.len())?;
        Ok(last * self.member_size + last_len)
    }

    fn read_exact_at(&self, mut pos: u64, mut buf: &mut [u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let idx = usize::try_from(pos / self.member_size)
                .map_err(|_| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            let within = pos % self.member_size;
            let n = usize::try_from(self.member_size - within)
                .unwrap_or(usize::MAX)
                .min(buf.len());
            let member = self
                .members
                .get(idx)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            let (head, tail) = buf.split_at_mut(n);
            let got = member.read_at(within, head)?;
            head[got..].fill(0);
            buf = tail;
            pos += n as u64;
        }
        Ok(())
    }

    fn is_local(&self) -> bool {
        self.members.iter().all(|m| m.is_local())
    }
}

/// The multi driver's members: each holds the addresses from its start address on (up to
/// the next member's), read at `address - start` in the member.
#[derive(Debug)]
pub struct MultiStorage {
    /// (start address, member) sorted by start.
    members: Vec<(u64, Box<dyn Storage>)>,
}

impl MultiStorage {
    /// Members with the first address each holds.
    pub fn new(mut members: Vec<(u64, Box<dyn Storage>)>) -> Self {
        members.sort_by_key(|m| m.0);
        MultiStorage { members }
    }
}

impl Storage for MultiStorage {
    fn len(&self) -> io::Result<u64> {
        let mut end = 0;
        for (start, m) in &self.members {
            end = end.max(start.saturating_add(m.len()?));
        }
        Ok(end)
    }

    fn read_exact_at(&self, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        let (start, m) = self
            .members
            .iter()
            .rev()
            .find(|m| m.0 <= pos)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        m.read_exact_at(pos - start, buf)
    }

    fn is_local(&self) -> bool {
        self.members.iter().all(|m| m.1.is_local())
    }
}

#!/usr/bin/env python3
"""A power cut without a power cut: a FUSE file system that forgets what was never fsynced.

  Tests/PowerCut/lazyfs.py BACKING MOUNTPOINT [--control SOCKET] [--debug]

Mounts MOUNTPOINT over the folder BACKING (the "disk") and serves it from memory (the "page
cache"): every write, truncate, chmod, create, mkdir, symlink, link, rename, unlink and rmdir is
seen at once by every reader of the mount, and reaches BACKING only when it is made durable:

  - a file's data, size and mode: by fsync or fdatasync of that file (any descriptor of it);
  - a folder's entries (names created, renamed in or out, unlinked): by fsync of that folder
    (an O_DIRECTORY descriptor's fsync reaches FUSE as fsyncdir); a rename between two folders
    needs both folders fsynced, each keeps its own side;
  - nothing else: close, flush, a process's exit and the passing of time make nothing durable.

This is the strict POSIX model (fsync(2): "Calling fsync() does not necessarily ensure that the
entry in the directory containing the file has also reached disk. For that an explicit fsync()
on a file descriptor for the directory is also needed."), not ext4 data=ordered's kinder one,
where fsync of a file also commits the journal holding its directory entry and every other
pending rename: a program that is durable here is durable on ext4, XFS and btrfs alike, while
one that leans on ext4's journal is caught here. A file whose name was made durable but whose
data never was comes back empty (the ext4 zero-length file after a rename-without-fsync).
By default everything not durable is dropped at a cut; `cut P` first lets a random part of it
through (each file's pending data, each folder's pending entries, whole), which explores the
orders a real disk's write-back may have chosen.

Controls, on the Unix socket SOCKET (default BACKING + ".lazyfs.sock"), one line each:
  sync      make everything visible durable (what `sync` does; FUSE never sees a syncfs), reply ok
  cut [P]   the power cut: drop everything not durable (with P > 0, first let each pending
            item, a file's unsynced data or a folder's unsynced entries, reach the disk whole
            with probability P, as write-back may have done), unmount at once (every process using
            the mount gets ENOTCONN or EIO from then on) and exit; BACKING is then what a disk
            would hold. Reply ok just before the exit.
  unmount   sync, then unmount cleanly and exit (reply ok)
  stats     one JSON line: counts of operations and the list of fsync/fsyncdir calls
SIGTERM or SIGINT unmounts without a sync (the same as a cut, less promptly).

Mount options and why: use_ino (stable inode numbers: SQLite tells files apart by st_ino);
hard_remove (an unlinked open file really goes, no .fuse_hidden files); big_writes (128 KiB
writes, not 4 KiB ones); no_remote_lock (flock and POSIX record locks are kept by the kernel,
for the one mount: two processes flocking one file exclude each other, and SQLite's fcntl locks
on the database and -shm work; fusepy has no lock callback, so locks cannot reach this process
anyway). direct_io stays off, so the kernel's page cache serves shared writable mmap: SQLite's
WAL index (-shm) works as it does on a disk, with no `PRAGMA locking_mode`.

Known gaps: timestamps are not kept durably (BACKING's files get the time they were written);
xattrs, FIFOs and device files are not supported, nor fallocate (EOPNOTSUPP); everything, data
included, is held in memory, and the backing folder is read whole at mount. A rename between two
folders is not atomic here (each folder keeps its own side: the file can end up in both or in
neither, as on a file system without a journal; ext4 and XFS would keep one side). Write-back
(`cut P`) moves whole items: no torn write within a file, no half-written page. O_DIRECT works
(the kernel sends it straight here) and, like any write, is durable only once fsynced. A mmap'd
write reaches this process only when the kernel writes the page back (msync, munmap, fsync, a
reopen, memory pressure), as it would reach a disk. Locks are the kernel's, for this one mount:
two processes flocking (or fcntl-locking) one name exclude each other, but two hard links to one
file are two inodes to the kernel here (libfuse's high-level API gives each name its own node),
so a lock or a mapping taken through one name does not meet one taken through the other.

As a module: `Mount(backing, mountpoint)` starts one in a child process and has sync(), cut(),
unmount() and stats().
"""
import errno, json, os, random, shutil, socket, stat, subprocess, sys, threading, time

HERE = os.path.abspath(__file__)


# --- The file system ---------------------------------------------------------------------------

class Node:
    __slots__ = ("ino", "kind", "mode", "uid", "gid", "data", "target", "entries", "nlink",
                 "atime", "mtime", "ctime", "opens",
                 "d_data", "d_mode", "d_entries")

    def __init__(self, ino, kind, mode, uid=0, gid=0):
        self.ino, self.kind, self.mode, self.uid, self.gid = ino, kind, mode, uid, gid
        self.data = bytearray() if kind == "f" else None
        self.target = None
        self.entries = {} if kind == "d" else None
        self.nlink = 0
        now = time.time_ns()
        self.atime = self.mtime = self.ctime = now
        self.opens = 0
        # What a disk holds for this inode: data and mode as of its last fsync, entries as of its
        # last fsyncdir. A new inode has none: empty, and its mode at creation.
        self.d_data = b""
        self.d_mode = mode
        self.d_entries = {}


def _operations_base():
    try:
        from fuse import Operations
    except ImportError:
        sys.exit("lazyfs: fusepy is missing (pip install fusepy, or apt-get install python3-fusepy)")
    return Operations


class LazyFS(_operations_base()):
    use_ns = True

    def __init__(self, backing):
        self.backing = os.path.abspath(backing)
        self.mutex = threading.RLock()
        self.nodes = {}
        self.next_ino = 1
        self.handles = {}        # fh -> ino
        self.next_fh = 1
        self.durable_parents = {}  # ino -> {(parent ino, name)} in the durable tree
        self.dead = False
        self.counts = {}
        self.synced = []          # (seconds since mount, "fsync"|"fsyncdir", path)
        self.started = time.monotonic()
        self.root = self._load()

    # Loading the disk as it is.

    def _new(self, kind, mode, uid=0, gid=0):
        node = Node(self.next_ino, kind, mode, uid, gid)
        self.nodes[node.ino] = node
        self.next_ino += 1
        return node

    def _load(self):
        by_inode = {}

        def load(path, info):
            if stat.S_ISDIR(info.st_mode):
                node = self._new("d", info.st_mode, info.st_uid, info.st_gid)
                with os.scandir(path) as entries:
                    for entry in entries:
                        child = load(entry.path, entry.stat(follow_symlinks=False))
                        if child is None:
                            continue
                        node.entries[entry.name] = child.ino
                        child.nlink += 1
                        self.durable_parents.setdefault(child.ino, set()).add((node.ino, entry.name))
                node.d_entries = dict(node.entries)
            elif stat.S_ISREG(info.st_mode):
                if info.st_ino in by_inode:
                    return by_inode[info.st_ino]
                node = self._new("f", info.st_mode, info.st_uid, info.st_gid)
                with open(path, "rb") as f:
                    node.d_data = f.read()
                node.data = bytearray(node.d_data)
                by_inode[info.st_ino] = node
            elif stat.S_ISLNK(info.st_mode):
                node = self._new("l", info.st_mode, info.st_uid, info.st_gid)
                node.target = os.readlink(path)
            else:
                return None  # FIFOs, sockets, devices: not served
            node.d_mode = node.mode
            node.atime, node.mtime, node.ctime = info.st_atime_ns, info.st_mtime_ns, info.st_ctime_ns
            return node

        root = load(self.backing, os.lstat(self.backing))
        root.nlink = 1
        return root

    # Helpers.

    def __call__(self, op, *args):
        with self.mutex:
            if self.dead:
                raise OSError(errno.EIO, "the power is off")
            self.counts[op] = self.counts.get(op, 0) + 1
            return getattr(self, op)(*args)

    def _resolve(self, path):
        node = self.root
        for part in path.split("/"):
            if not part:
                continue
            if node.kind != "d":
                raise OSError(errno.ENOTDIR, path)
            ino = node.entries.get(part)
            if ino is None:
                raise OSError(errno.ENOENT, path)
            node = self.nodes[ino]
        return node

    def _parent(self, path):
        head, name = path.rstrip("/").rsplit("/", 1)
        parent = self._resolve(head or "/")
        if parent.kind != "d":
            raise OSError(errno.ENOTDIR, path)
        return parent, name

    def _node(self, path, fh=None):
        if fh is not None and fh in self.handles:
            return self.nodes[self.handles[fh]]
        if path is None:
            raise OSError(errno.ENOENT, "no path")
        return self._resolve(path)

    def _touch(self, node, modified=True):
        now = time.time_ns()
        node.ctime = now
        if modified:
            node.mtime = now

    def _link_in(self, parent, name, node):
        parent.entries[name] = node.ino
        node.nlink += 1
        self._touch(parent)

    def _unlink_from(self, parent, name):
        node = self.nodes[parent.entries.pop(name)]
        node.nlink -= 1
        self._touch(parent)
        node.ctime = time.time_ns()
        self._forget_if_unused(node)

    def _forget_if_unused(self, node):
        # Its visible data goes once nothing can reach it; what is durable of it stays.
        if node.nlink == 0 and node.opens == 0 and node.kind == "f":
            node.data = bytearray()

    def _open(self, node):
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = node.ino
        node.opens += 1
        return fh

    # The durable side: BACKING always holds exactly the durable tree.

    def _durable_paths(self, ino, depth=0):
        if ino == self.root.ino:
            return [""]
        if depth > 64:
            return []
        return [os.path.join(parent_path, name)
                for parent, name in sorted(self.durable_parents.get(ino, ()))
                for parent_path in self._durable_paths(parent, depth + 1)]

    def _disk(self, rel):
        return os.path.join(self.backing, rel) if rel else self.backing

    def _write_out(self, node, rel):
        """Puts the durable state of `node` (and, for a folder, of its durable subtree) at `rel`."""
        path = self._disk(rel)
        if os.path.lexists(path):
            self._remove(rel)
        if node.kind == "d":
            os.mkdir(path, stat.S_IMODE(node.d_mode))
            os.chmod(path, stat.S_IMODE(node.d_mode))
            for name, ino in sorted(node.d_entries.items()):
                self._write_out(self.nodes[ino], os.path.join(rel, name))
        elif node.kind == "l":
            os.symlink(node.target, path)
        else:
            for other in self._durable_paths(node.ino):
                if other != rel and os.path.isfile(self._disk(other)) and not os.path.islink(self._disk(other)):
                    os.link(self._disk(other), path)  # a hard link stays one inode on the disk
                    return
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, stat.S_IMODE(node.d_mode))
            try:
                os.write(fd, node.d_data)
                os.fchmod(fd, stat.S_IMODE(node.d_mode))
            finally:
                os.close(fd)
        if node.kind != "l":
            os.chown(path, node.uid, node.gid, follow_symlinks=False)

    def _remove(self, rel):
        path = self._disk(rel)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)

    def _make_data_durable(self, node):
        node.d_mode = node.mode
        if node.kind != "f":
            return
        if len(node.d_data) == len(node.data) and node.d_data == node.data:
            changed = False
        else:
            node.d_data = bytes(node.data)
            changed = True
        for rel in self._durable_paths(node.ino):
            path = self._disk(rel)
            if changed:
                fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
                try:
                    os.write(fd, node.d_data)
                    os.ftruncate(fd, len(node.d_data))
                finally:
                    os.close(fd)
            os.chmod(path, stat.S_IMODE(node.d_mode))
            break  # every other durable path is a hard link to this one

    def _make_entries_durable(self, folder):
        folder.d_mode = folder.mode
        old, new = folder.d_entries, dict(folder.entries)
        folder.d_entries = new
        for name, ino in old.items():
            if new.get(name) != ino:
                self.durable_parents[ino].discard((folder.ino, name))
        for name, ino in new.items():
            if old.get(name) != ino:
                self.durable_parents.setdefault(ino, set()).add((folder.ino, name))
        for rel in self._durable_paths(folder.ino):
            os.chmod(self._disk(rel), stat.S_IMODE(folder.d_mode))
            for name, ino in old.items():
                if new.get(name) != ino:
                    self._remove(os.path.join(rel, name))
            for name, ino in sorted(new.items()):
                if old.get(name) != ino:
                    self._write_out(self.nodes[ino], os.path.join(rel, name))

    def _path_of(self, ino):
        """A visible path of `ino`, for the log."""
        def walk(folder, prefix, depth):
            for name, child in folder.entries.items():
                if child == ino:
                    return prefix + "/" + name
                node = self.nodes[child]
                if node.kind == "d" and depth < 32:
                    found = walk(node, prefix + "/" + name, depth + 1)
                    if found:
                        return found
            return None
        return "/" if ino == self.root.ino else (walk(self.root, "", 0) or f"<unlinked inode {ino}>")

    def sync_all(self):
        with self.mutex:
            if self.dead:
                return
            seen, order = set(), []

            def visit(node):
                if node.ino in seen:
                    return
                seen.add(node.ino)
                order.append(node)
                if node.kind == "d":
                    for ino in node.entries.values():
                        visit(self.nodes[ino])
            visit(self.root)
            for node in order:
                if node.kind == "f":
                    self._make_data_durable(node)
            for node in order:
                if node.kind == "d":
                    self._make_entries_durable(node)
            self.synced.append((round(time.monotonic() - self.started, 3), "sync", "/"))

    def write_back_some(self, probability, seed=None):
        """Before a cut: each pending item (a file's unsynced data and mode, a folder's unsynced
        entries) reaches the disk with `probability`, whole, as the kernel's write-back or a
        journal commit might have put it there before the power went. Items are independent
        and unordered: a rename may land without the data renamed, or the reverse."""
        chooser = random.Random(seed)
        with self.mutex:
            if self.dead:
                return
            seen, order = set(), []

            def visit(node):
                if node.ino in seen:
                    return
                seen.add(node.ino)
                order.append(node)
                if node.kind == "d":
                    for ino in node.entries.values():
                        visit(self.nodes[ino])
            visit(self.root)
            chooser.shuffle(order)
            for node in order:
                if chooser.random() < probability:
                    if node.kind == "f":
                        self._make_data_durable(node)
                    elif node.kind == "d":
                        self._make_entries_durable(node)
            self.synced.append((round(time.monotonic() - self.started, 3), f"write-back {probability}", "/"))

    def power_off(self):
        """Drops everything not durable: BACKING already holds only what is; nothing more may
        reach it. Keeps the lock, so no operation under way can write afterwards."""
        self.mutex.acquire()
        self.dead = True

    # FUSE operations (paths are relative to the mount, with a leading "/").

    def access(self, path, amode):
        self._resolve(path)
        return 0

    def getattr(self, path, fh=None):
        node = self._node(path, fh)
        kind = {"d": stat.S_IFDIR, "f": stat.S_IFREG, "l": stat.S_IFLNK}[node.kind]
        if node.kind == "d":
            size = 4096
            nlink = 2 + sum(1 for ino in node.entries.values() if self.nodes[ino].kind == "d")
        elif node.kind == "f":
            size, nlink = len(node.data), node.nlink
        else:
            size, nlink = len(os.fsencode(node.target)), node.nlink
        return {"st_mode": kind | stat.S_IMODE(node.mode), "st_ino": node.ino, "st_nlink": nlink,
                "st_uid": node.uid, "st_gid": node.gid, "st_size": size, "st_blocks": (size + 511) // 512,
                "st_atime": node.atime, "st_mtime": node.mtime, "st_ctime": node.ctime}

    def readdir(self, path, fh):
        node = self._node(path, fh)
        if node.kind != "d":
            raise OSError(errno.ENOTDIR, path)
        return [".", ".."] + list(node.entries)

    def opendir(self, path):
        node = self._resolve(path)
        if node.kind != "d":
            raise OSError(errno.ENOTDIR, path)
        return self._open(node)

    def releasedir(self, path, fh):
        return self.release(path, fh)

    def readlink(self, path):
        node = self._resolve(path)
        if node.kind != "l":
            raise OSError(errno.EINVAL, path)
        return node.target

    def open(self, path, flags):
        node = self._resolve(path)
        if node.kind == "d" and flags & os.O_ACCMODE != os.O_RDONLY:
            raise OSError(errno.EISDIR, path)
        return self._open(node)

    def create(self, path, mode, fi=None):
        parent, name = self._parent(path)
        if name in parent.entries:
            raise OSError(errno.EEXIST, path)
        ctx = self._context()
        node = self._new("f", stat.S_IFREG | stat.S_IMODE(mode), *ctx)
        self._link_in(parent, name, node)
        return self._open(node)

    def _context(self):
        from fuse import fuse_get_context
        uid, gid, _ = fuse_get_context()
        return uid, gid

    def release(self, path, fh):
        ino = self.handles.pop(fh, None)
        if ino is not None:
            node = self.nodes[ino]
            node.opens -= 1
            self._forget_if_unused(node)
        return 0

    def flush(self, path, fh):
        return 0  # close makes nothing durable

    def read(self, path, size, offset, fh):
        node = self._node(path, fh)
        if node.kind != "f":
            raise OSError(errno.EISDIR, path)
        node.atime = time.time_ns()
        return bytes(node.data[offset:offset + size])

    def write(self, path, data, offset, fh):
        node = self._node(path, fh)
        buffer = node.data
        end = offset + len(data)
        if offset == len(buffer):
            buffer += data
        else:
            if offset > len(buffer):
                buffer.extend(bytes(offset - len(buffer)))
            buffer[offset:end] = data
        self._touch(node)
        return len(data)

    def truncate(self, path, length, fh=None):
        node = self._node(path, fh)
        if node.kind != "f":
            raise OSError(errno.EISDIR, path)
        if length < len(node.data):
            del node.data[length:]
        else:
            node.data.extend(bytes(length - len(node.data)))
        self._touch(node)
        return 0

    def fsync(self, path, datasync, fh):
        node = self._node(path, fh)
        self._make_data_durable(node)
        self.synced.append((round(time.monotonic() - self.started, 3), "fsync", self._path_of(node.ino)))
        return 0

    def fsyncdir(self, path, datasync, fh):
        node = self._node(path, fh)
        if node.kind != "d":
            raise OSError(errno.ENOTDIR, path)
        self._make_entries_durable(node)
        self.synced.append((round(time.monotonic() - self.started, 3), "fsyncdir", self._path_of(node.ino)))
        return 0

    def mkdir(self, path, mode):
        parent, name = self._parent(path)
        if name in parent.entries:
            raise OSError(errno.EEXIST, path)
        node = self._new("d", stat.S_IFDIR | stat.S_IMODE(mode), *self._context())
        self._link_in(parent, name, node)
        return 0

    def mknod(self, path, mode, dev):
        if not stat.S_ISREG(mode):
            raise OSError(errno.EPERM, "lazyfs serves regular files, folders and links only")
        fh = self.create(path, mode)
        return self.release(path, fh)

    def symlink(self, target, source):
        # fusepy's names: `target` is the new link's path, `source` what it points to.
        parent, name = self._parent(target)
        if name in parent.entries:
            raise OSError(errno.EEXIST, target)
        node = self._new("l", stat.S_IFLNK | 0o777, *self._context())
        node.target = source
        self._link_in(parent, name, node)
        return 0

    def link(self, target, source):
        # fusepy's names: `target` is the new name, `source` the existing file.
        node = self._resolve(source)
        if node.kind == "d":
            raise OSError(errno.EPERM, source)
        parent, name = self._parent(target)
        if name in parent.entries:
            raise OSError(errno.EEXIST, target)
        self._link_in(parent, name, node)
        node.ctime = time.time_ns()
        return 0

    def unlink(self, path):
        parent, name = self._parent(path)
        if name not in parent.entries:
            raise OSError(errno.ENOENT, path)
        if self.nodes[parent.entries[name]].kind == "d":
            raise OSError(errno.EISDIR, path)
        self._unlink_from(parent, name)
        return 0

    def rmdir(self, path):
        parent, name = self._parent(path)
        if name not in parent.entries:
            raise OSError(errno.ENOENT, path)
        node = self.nodes[parent.entries[name]]
        if node.kind != "d":
            raise OSError(errno.ENOTDIR, path)
        if node.entries:
            raise OSError(errno.ENOTEMPTY, path)
        self._unlink_from(parent, name)
        return 0

    def rename(self, old, new):
        source_parent, source_name = self._parent(old)
        if source_name not in source_parent.entries:
            raise OSError(errno.ENOENT, old)
        node = self.nodes[source_parent.entries[source_name]]
        target_parent, target_name = self._parent(new)
        existing = target_parent.entries.get(target_name)
        if existing == node.ino:
            return 0
        if node.kind == "d":
            ancestor = target_parent  # no folder into itself
            for _ in range(64):
                if ancestor.ino == node.ino:
                    raise OSError(errno.EINVAL, new)
                parents = [p for p in self.nodes.values() if p.kind == "d" and ancestor.ino in p.entries.values()]
                if not parents:
                    break
                ancestor = parents[0]
        if existing is not None:
            other = self.nodes[existing]
            if node.kind == "d" and other.kind != "d":
                raise OSError(errno.ENOTDIR, new)
            if node.kind != "d" and other.kind == "d":
                raise OSError(errno.EISDIR, new)
            if other.kind == "d" and other.entries:
                raise OSError(errno.ENOTEMPTY, new)
            self._unlink_from(target_parent, target_name)
        del source_parent.entries[source_name]
        node.nlink -= 1
        self._touch(source_parent)
        self._link_in(target_parent, target_name, node)
        node.ctime = time.time_ns()
        return 0

    def chmod(self, path, mode):
        node = self._resolve(path)
        node.mode = (node.mode & ~0o7777) | (mode & 0o7777)
        self._touch(node, modified=False)
        return 0

    def chown(self, path, uid, gid):
        node = self._resolve(path)
        if uid != -1 and uid != 0xFFFFFFFF:
            node.uid = uid
        if gid != -1 and gid != 0xFFFFFFFF:
            node.gid = gid
        self._touch(node, modified=False)
        return 0

    def utimens(self, path, times=None):
        node = self._resolve(path)
        now = time.time_ns()
        node.atime, node.mtime = times if times else (now, now)
        node.ctime = now
        return 0

    # Extended attributes: ENOSYS, so the kernel stops asking (it would look up
    # security.capability before every write).
    def getxattr(self, path, name, position=0):
        raise OSError(errno.ENOSYS, "no xattrs")

    def listxattr(self, path):
        raise OSError(errno.ENOSYS, "no xattrs")

    def setxattr(self, path, name, value, options, position=0):
        raise OSError(errno.ENOSYS, "no xattrs")

    def removexattr(self, path, name):
        raise OSError(errno.ENOSYS, "no xattrs")

    def statfs(self, path):
        info = os.statvfs(self.backing)
        return {key: getattr(info, key) for key in
                ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_favail", "f_flag", "f_namemax")}

    def destroy(self, path):
        return 0


# --- Running one -------------------------------------------------------------------------------

def _unmount(mountpoint, lazy):
    for command in (["fusermount", "-u"] + (["-z"] if lazy else []) + [mountpoint],
                    ["umount"] + (["-l"] if lazy else []) + [mountpoint]):
        try:
            if subprocess.run(command, capture_output=True).returncode == 0:
                return True
        except FileNotFoundError:
            pass
    return False


def serve(backing, mountpoint, control, debug=False):
    from fuse import FUSE
    filesystem = LazyFS(backing)
    mountpoint = os.path.abspath(mountpoint)
    if os.path.exists(control):
        os.unlink(control)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(control)
    server.listen(4)

    def controls():
        while True:
            connection, _ = server.accept()
            with connection:
                command = connection.makefile("r").readline().strip()
                if command == "sync":
                    filesystem.sync_all()
                    connection.sendall(b"ok\n")
                elif command == "stats":
                    with filesystem.mutex:
                        reply = {"counts": filesystem.counts, "synced": filesystem.synced}
                    connection.sendall(json.dumps(reply).encode() + b"\n")
                elif command == "cut" or command.startswith("cut "):
                    probability = float(command.split()[1]) if " " in command else 0.0
                    if probability > 0:
                        filesystem.write_back_some(probability)
                    filesystem.power_off()
                    _unmount(mountpoint, lazy=True)
                    connection.sendall(b"ok\n")
                    connection.close()
                    try:
                        os.unlink(control)
                    except OSError:
                        pass
                    os._exit(0)  # closing /dev/fuse aborts the connection: ENOTCONN for all
                elif command == "unmount":
                    filesystem.sync_all()
                    filesystem.power_off()
                    _unmount(mountpoint, lazy=True)
                    connection.sendall(b"ok\n")
                    connection.close()
                    try:
                        os.unlink(control)
                    except OSError:
                        pass
                    os._exit(0)
                else:
                    connection.sendall(b"unknown command\n")

    threading.Thread(target=controls, daemon=True).start()
    FUSE(filesystem, mountpoint, foreground=True, nothreads=False, debug=debug,
         fsname="lazyfs", subtype="lazyfs", use_ino=True, hard_remove=True, big_writes=True,
         max_write=131072, max_read=131072, no_remote_lock=True)
    try:
        os.unlink(control)
    except OSError:
        pass


class Mount:
    """One lazyfs in a child process: `Mount(backing, mountpoint)`, then sync(), cut(),
    unmount(), stats().

    Its waits are for a process that may get no CPU for a while: scripts/test runs the campaigns
    where only a CPU nothing else wants runs them, and its fuzz targets take both cores for about
    95 s (a 15 s wait for the mount ran out there, ci22). So each wait is for minutes: they
    catch a lazyfs that hangs, not a slow one."""

    def __init__(self, backing, mountpoint, log=None, timeout=300):
        self.backing, self.mountpoint = os.path.abspath(backing), os.path.abspath(mountpoint)
        self.control = self.backing.rstrip("/") + ".lazyfs.sock"
        os.makedirs(self.mountpoint, exist_ok=True)
        self.process = subprocess.Popen([sys.executable, HERE, self.backing, self.mountpoint, "--control", self.control],
                                        stdout=log or subprocess.DEVNULL, stderr=log or subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while not (os.path.ismount(self.mountpoint) and os.path.exists(self.control)):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError(f"lazyfs did not mount {self.mountpoint} (exit {self.process.poll()})")
            time.sleep(0.01)

    def _ask(self, command, timeout=300):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(timeout)
            connection.connect(self.control)
            connection.sendall(command.encode() + b"\n")
            return connection.makefile("r").readline().strip()

    def sync(self):
        if self._ask("sync") != "ok":
            raise RuntimeError("lazyfs: sync failed")

    def stats(self):
        return json.loads(self._ask("stats"))

    def _stop(self, command):
        if self.process.poll() is None:
            try:
                self._ask(command)
            except OSError:
                pass
            try:
                self.process.wait(timeout=300)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if os.path.ismount(self.mountpoint):
            _unmount(self.mountpoint, lazy=True)

    def cut(self, write_back=0.0):
        """The power cut. Returns once the backing folder is final. With `write_back` > 0, each
        pending item reaches the disk first with that probability (see write_back_some)."""
        self._stop(f"cut {write_back}" if write_back else "cut")

    def unmount(self):
        self._stop("unmount")


def main():
    args = sys.argv[1:]
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    control = None
    if "--control" in args:
        index = args.index("--control")
        control = args[index + 1]
        del args[index:index + 2]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    backing, mountpoint = args
    serve(backing, mountpoint, control or os.path.abspath(backing).rstrip("/") + ".lazyfs.sock", debug)


if __name__ == "__main__":
    main()

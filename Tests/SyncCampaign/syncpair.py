"""Two libraries and one sync folder, for the campaigns' sync workers (scripts/crashtest,
scripts/powertest, scripts/racetest): the pair is made, each library changes its clips, and once
both have synced the two are compared.

The seed (`seed`): libraries `one` and `two` each import 3 clips; `one` sets up the folder and
`two` joins it, and both sync, so each holds all 6. Then each changes them without the other
knowing yet:

  two, sent at once      edits O1's title, plays T1, tags O1 +sister, adds a marker to T2,
                         deletes T3, imports N2
  one, the folder away   edits O1's notes, plays T1, tags O1 +calm, pins T2 to slot 1, deletes
                         O2, imports N1 (the folder renamed away while it does, as a USB stick
                         unplugged: its changes wait in its outbox for `cravey sync`)

so that one's next `cravey sync` both sends (6 change files, N1's media) and merges (two's 6).
Once both have synced (`settle`), each library must hold (`expected`): O1 with two's title, one's
notes and both tags; T1 played twice; T2 pinned to slot 1 with its marker; N1 and N2; and
neither O2 nor T3. Counted (`compare`, once each library's `doctor --repair` has run, as the
campaigns repair after every kill or cut):

  lost          a change one library made is missing in either after both synced
  resurrected   a clip deleted on one is back on either
  diverged      the two libraries' clips differ after both synced twice: ids, titles, notes,
                play counts, tags, pins, markers, media sizes
  twice         a play counted twice: a clip with more plays, or more play events, than were made
  inconsistent  the repair fails, `doctor` then finds something, or a play count is not its
                play events

A copy of the seed stands for the same library in the same place: a library records where it is
(its folder's inode, docs/sync.md), and one found elsewhere takes a new device. `settle_place`
writes the copy's inode there, as the original's would be, so each run is the library it copies,
not a library restored elsewhere.
"""
import json, os, shutil, subprocess

PASSPHRASE = "correct horse battery staple"


class Pair:
    def __init__(self, cravey, root, env):
        """The pair under `root`: root/one, root/two and the folder root/folder (each may be a
        symbolic link: the power-cut campaign points them at its mount, then at its disk)."""
        self.cravey, self.root, self.env = cravey, root, env
        self.one, self.two, self.folder = (os.path.join(root, name) for name in ("one", "two", "folder"))

    def run(self, library, *args, check=False):
        result = subprocess.run([self.cravey, *args, "--library", library], capture_output=True, text=True, env=self.env)
        if check and result.returncode != 0:
            raise RuntimeError(f"cravey {' '.join(args)} --library {library} exited {result.returncode}: {result.stderr.strip()[-400:]}")
        return result

    def sync(self, library, check=False):
        return self.run(library, "sync", check=check)

    def settle(self):
        """The next `cravey sync` on both, twice each (the second merges what the first sent)."""
        return [self.sync(library).returncode for library in (self.one, self.two, self.one, self.two)]

    def state(self, library):
        """id -> what is compared of each clip: title, notes, plays, tags, pin, markers, media
        size; and id -> its play events. None when the library cannot be listed."""
        listed = self.run(library, "list", "--json")
        if listed.returncode != 0:
            return None, None
        clips = {r["id"]: (r["title"], r["notes"], r["playCount"], tuple(sorted(r["tags"])), r["pinnedSlot"],
                           tuple((m["at"], m.get("label")) for m in r["markers"]), r["fileSize"])
                 for r in json.loads(listed.stdout)}
        events = subprocess.run(["sqlite3", os.path.join(library, "library.sqlite"),
                                 "SELECT lower(recordingId), count(*) FROM playEvent GROUP BY recordingId"],
                                capture_output=True, text=True)
        plays = {line.split("|")[0]: int(line.split("|")[1]) for line in events.stdout.split()} if events.returncode == 0 else None
        return clips, plays

    def compare(self, ids, tally, problems):
        """Adds to `tally` what both synced show (module doc); `ids` names the seed's clips. Each
        library is repaired first, as the campaigns repair after every kill (a file a kill left,
        such as a deleted clip's not yet unlinked, is the repair's to finish), then `doctor`
        must find nothing."""
        for name, library in (("one", self.one), ("two", self.two)):
            repair = self.run(library, "doctor", "--repair")
            if repair.returncode != 0:
                tally["inconsistent"] += 1
                problems.append(f"inconsistent: {name}: doctor --repair exited {repair.returncode}: {repair.stdout.strip()[-300:]}")
        states = {name: self.state(library) for name, library in (("one", self.one), ("two", self.two))}
        for name, (clips, plays) in states.items():
            if clips is None or plays is None:
                tally["inconsistent"] += 1
                problems.append(f"inconsistent: {name} cannot be listed")
                continue
            for what, holds in expected(ids).items():
                clip = ids.get(what.split(":")[0])
                row = clips.get(clip) if clip else next((c for c in clips.values() if c[0] == what.split(":")[0]), None)
                if not holds(row):
                    tally["lost"] += 1
                    problems.append(f"lost: {name}: {what} ({row})")
            for gone in ("O2", "T3"):
                if ids[gone] in clips:
                    tally["resurrected"] += 1
                    problems.append(f"resurrected: {name}: {gone}, deleted, is back")
            played = clips.get(ids["T1"])
            if played and (played[2] > 2 or plays.get(ids["T1"], 0) > 2):
                tally["twice"] += 1
                problems.append(f"twice: {name}: T1 counts {played[2]} plays, {plays.get(ids['T1'], 0)} events, of 2 made")
            for clip, row in clips.items():
                if row[2] != plays.get(clip, 0):
                    tally["inconsistent"] += 1
                    problems.append(f"inconsistent: {name}: {clip[:8]} counts {row[2]} plays, {plays.get(clip, 0)} events")
            doctor = self.run(self.one if name == "one" else self.two, "doctor")
            if doctor.returncode != 0:
                tally["inconsistent"] += 1
                problems.append(f"inconsistent: {name}: doctor: {doctor.stdout.strip()[:300]}")
        one, two = states["one"][0], states["two"][0]
        if one is not None and two is not None and one != two:
            tally["diverged"] += 1
            differ = sorted(set(one) ^ set(two)) + [c for c in one if c in two and one[c] != two[c]]
            problems.append(f"diverged: {len(differ)} clips differ, e.g. {differ[0][:8]}: one {one.get(differ[0])}, "
                            f"two {two.get(differ[0])}")


def expected(ids):
    """What each library holds once both synced: each a test of the clip's compared row (None:
    not there). New clips are found by their title."""
    return {
        "O1:two's title": lambda r: r is not None and r[0] == "Two's title",
        "O1:one's notes": lambda r: r is not None and r[1] == "One's notes",
        "O1:both tags": lambda r: r is not None and set(r[3]) >= {"calm", "sister"},
        "T1:both plays": lambda r: r is not None and r[2] >= 2,
        "T2:pinned": lambda r: r is not None and r[4] == 1,
        "T2:marker": lambda r: r is not None and (0.5, "here") in r[5],
        "New one:imported": lambda r: r is not None,
        "New two:imported": lambda r: r is not None,
    }


def seed(pair, clip):
    """Makes the pair's seed (module doc) at its paths, durable; returns the seed's clip ids."""
    ids = {}
    for name, library in (("O", pair.one), ("T", pair.two)):
        for index in range(1, 4):
            ids[f"{name}{index}"] = pair.run(library, "import", clip, "--title", f"{name}{index}", check=True).stdout.strip()
    with open(os.path.join(pair.root, "passphrase"), "w") as file:
        file.write(PASSPHRASE + "\n")
    os.chmod(os.path.join(pair.root, "passphrase"), 0o600)
    pair.env = dict(pair.env, CRAVEY_PASSPHRASE_FILE=os.path.join(pair.root, "passphrase"))
    pair.run(pair.one, "sync", pair.folder, check=True)  # set up
    pair.run(pair.two, "sync", pair.folder, check=True)  # joined, one's clips merged
    pair.sync(pair.one, check=True)                      # two's merged
    pair.run(pair.two, "edit", ids["O1"], "--title", "Two's title", check=True)
    pair.run(pair.two, "play", ids["T1"], check=True)
    pair.run(pair.two, "tag", ids["O1"], "+sister", check=True)
    pair.run(pair.two, "markers", ids["T2"], "--add", "0.5", "--label", "here", check=True)
    pair.run(pair.two, "delete", ids["T3"], "--yes", check=True)
    pair.run(pair.two, "import", clip, "--title", "New two", check=True)
    away = pair.folder + ".away"
    os.rename(pair.folder, away)
    try:
        pair.run(pair.one, "edit", ids["O1"], "--notes", "One's notes", check=True)
        pair.run(pair.one, "play", ids["T1"], check=True)
        pair.run(pair.one, "tag", ids["O1"], "+calm", check=True)
        pair.run(pair.one, "pin", ids["T2"], "1", check=True)
        pair.run(pair.one, "delete", ids["O2"], "--yes", check=True)
        pair.run(pair.one, "import", clip, "--title", "New one", check=True)
    finally:
        os.rename(away, pair.folder)
    status = json.loads(pair.run(pair.one, "sync", "--status", "--json", check=True).stdout)
    if status["unsent"] != 6:
        raise RuntimeError(f"the seed's library one has {status['unsent']} change files unsent, not 6")
    subprocess.run(["sync"], check=True)
    return ids


def copy(seed_root, pair):
    """A fresh copy of the seed (moved to `seed_root` once made) at the pair's paths, where it
    was made (its libraries name them), each library's place set to its copy's (module doc)."""
    shutil.rmtree(pair.root, ignore_errors=True)
    shutil.copytree(seed_root, pair.root, symlinks=True)
    for library in (pair.one, pair.two):
        settle_place(library)


def settle_place(library):
    """Writes `library`'s folder inode as its sync device's place (module doc)."""
    inode = os.stat(library).st_ino
    subprocess.run(["sqlite3", os.path.join(library, "library.sqlite"), f"UPDATE syncDevice SET inode = {inode}"], check=True)

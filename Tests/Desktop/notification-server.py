#!/usr/bin/python3
"""A notification server for the tests: owns org.freedesktop.Notifications on the session bus,
writes each Notify and CloseNotification call as a JSON line to the file given; the test's own
method org.cravey.Test.PressStop presses the Stop button of the last notification (emits
ActionInvoked(id, "stop")), and org.cravey.Test.Press(action) presses any of its buttons. (Not a signal: the tests' threads block signals, and children inherit
that.)"""
import json, sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
log = open(sys.argv[1], "a", buffering=1)

class Server(dbus.service.Object):
    last = 0

    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        Server.last += 1
        log.write(json.dumps({"call": "Notify", "id": Server.last, "app": str(app), "summary": str(summary),
                              "body": str(body), "actions": [str(a) for a in actions],
                              "desktopEntry": str(hints.get("desktop-entry", ""))}) + "\n")
        return dbus.UInt32(Server.last)

    @dbus.service.method("org.freedesktop.Notifications", in_signature="u")
    def CloseNotification(self, id):
        log.write(json.dumps({"call": "CloseNotification", "id": int(id)}) + "\n")

    @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
    def GetServerInformation(self):
        return ("cravey-test", "cravey", "1", "1.2")

    @dbus.service.signal("org.freedesktop.Notifications", signature="us")
    def ActionInvoked(self, id, action):
        pass

    @dbus.service.method("org.cravey.Test")
    def PressStop(self):
        self.ActionInvoked(dbus.UInt32(Server.last), "stop")

    @dbus.service.method("org.cravey.Test", in_signature="s")
    def Press(self, action):
        self.ActionInvoked(dbus.UInt32(Server.last), action)

bus = dbus.SessionBus()
name = dbus.service.BusName("org.freedesktop.Notifications", bus)
server = Server(bus, "/org/freedesktop/Notifications")
log.write(json.dumps({"call": "ready"}) + "\n")
GLib.MainLoop().run()

#!/usr/bin/python3
"""A drag source for the desktop-window test: a small GTK window whose button offers the files
named on the command line as a `text/uri-list` drag, as a file manager does. xdotool presses,
moves and releases the mouse from it onto the app window, so the drop takes the real X11
drag-and-drop path (XDND) into the webview.

Usage: drag_source.py X Y FILE...   (window placed at X,Y; prints "ready" once shown)"""
import sys
import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

x, y, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
uris = [GLib.filename_to_uri(f, None) for f in files]

win = Gtk.Window(title="drag source")
win.set_default_size(160, 80)
win.move(x, y)
button = Gtk.Button(label="drag me")
button.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
button.drag_source_add_uri_targets()


def on_get(_w, _ctx, data, _info, _time):
    data.set_uris(uris)


button.connect("drag-data-get", on_get)
win.add(button)
win.connect("destroy", Gtk.main_quit)
win.show_all()
GLib.timeout_add(300, lambda: print("ready", flush=True) and False)
Gtk.main()

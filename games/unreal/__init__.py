"""Unreal Engine games with the UnrealCV plugin, played over its socket (``docs/guides/unreal.md``)."""

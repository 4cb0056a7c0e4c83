"""The Python target: generated source run on flat lists, with checked loads and stores."""

print("baton-peer")

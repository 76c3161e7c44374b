print("baton")

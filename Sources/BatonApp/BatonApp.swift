// BatonApp

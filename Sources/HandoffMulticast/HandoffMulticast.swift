// HandoffMulticast

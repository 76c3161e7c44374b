// NCursesBackend

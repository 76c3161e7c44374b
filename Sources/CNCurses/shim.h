#pragma once
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncurses.h>

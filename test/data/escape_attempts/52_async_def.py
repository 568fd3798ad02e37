# async def to get a coroutine and its cr_frame
async def f():
    return 1
escaped = f().cr_frame.f_globals
